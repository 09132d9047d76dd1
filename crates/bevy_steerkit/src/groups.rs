//! Crowd groups for behaviours: agents with equal (mapped) behaviours share one group, and a
//! group no agent runs any more is re-set for the next new behaviour instead of adding one.
//! Without reuse a game re-aiming a `Seek` every frame would add a group per frame until the
//! crowd refuses (65 536 groups).
//!
//! A behaviour's `remove_on_arrival` is kept here and cleared in the crowd's copy: the plugin
//! takes such agents out itself after the step, reading their final state first (the crowd
//! would drop it with the agent).

use steerkit::crowd::{Crowd, CrowdError, CrowdVector, Group, GroupId};

/// A group the plugin added: its crowd form and how many of the plugin's agents run it.
struct Entry<V: CrowdVector> {
    id: GroupId,
    group: Group<V>,
    users: u32,
}

/// The groups the plugin added for behaviours, with their users.
pub(crate) struct GroupPool<V: CrowdVector> {
    entries: Vec<Entry<V>>,
}

impl<V: CrowdVector> Default for GroupPool<V> {
    fn default() -> Self {
        GroupPool { entries: Vec::new() }
    }
}

impl<V: CrowdVector> GroupPool<V> {
    /// The group running `group` for one more agent: an equal group, else an unused one set to
    /// it, else a new one.
    ///
    /// # Errors
    /// The crowd's refusal of the group (nothing is counted then).
    pub(crate) fn acquire(
        &mut self,
        crowd: &mut Crowd<V>,
        group: Group<V>,
    ) -> Result<GroupId, CrowdError> {
        // a linear scan: the pool holds the distinct live behaviours, usually a handful
        if let Some(e) = self.entries.iter_mut().find(|e| e.group == group) {
            e.users += 1;
            return Ok(e.id);
        }
        if let Some(e) = self.entries.iter_mut().find(|e| e.users == 0) {
            crowd.set_group(e.id, in_crowd(&group))?;
            e.group = group;
            e.users = 1;
            return Ok(e.id);
        }
        let id = crowd.add_group(in_crowd(&group))?;
        self.entries.push(Entry { id, group, users: 1 });
        Ok(id)
    }

    /// One agent fewer runs `id` (a group the pool did not add is left alone).
    pub(crate) fn release(&mut self, id: GroupId) {
        if let Some(e) = self.entries.iter_mut().find(|e| e.id == id) {
            e.users = e.users.saturating_sub(1);
        }
    }

    /// True when `id` is a behaviour whose agents leave the crowd on arrival.
    pub(crate) fn removes_on_arrival(&self, id: GroupId) -> bool {
        self.entries.iter().any(|e| e.id == id && e.group.remove_on_arrival)
    }

    /// The groups some agent runs.
    pub(crate) fn live(&self) -> impl Iterator<Item = &Group<V>> {
        self.entries.iter().filter(|e| e.users > 0).map(|e| &e.group)
    }

    /// The number of groups the pool added (used or free).
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// The crowd's copy of a behaviour's group: the plugin, not the crowd, removes arrived agents.
fn in_crowd<V: CrowdVector>(group: &Group<V>) -> Group<V> {
    Group { remove_on_arrival: false, ..group.clone() }
}
