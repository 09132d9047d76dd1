//! Agent numbers in file order: what replays, trajectories, events and metrics call an agent.

use crate::{Dim, World};
use steerkit::crowd::AgentHandle;

/// Agent numbers in file order (groups first to last, each group's agents in order) and the
/// group of each. Numbers are fixed when the world is built: an agent that leaves the crowd
/// keeps its number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Numbering {
    /// Agent number by handle index; `u32::MAX` for a handle no group names.
    numbers: Vec<u32>,
    /// Group index by agent number.
    agent_groups: Vec<u32>,
}

impl Numbering {
    /// The numbering of `world`'s groups.
    #[must_use]
    pub fn new<V: Dim>(world: &World<V>) -> Self {
        let handles = world.groups.iter().flat_map(|g| &g.agents);
        let slots = handles.map(|h| h.index as usize + 1).max();
        let mut numbers = vec![u32::MAX; slots.unwrap_or(0)];
        let mut agent_groups = Vec::new();
        for (gi, g) in world.groups.iter().enumerate() {
            for h in &g.agents {
                numbers[h.index as usize] = agent_groups.len() as u32;
                agent_groups.push(gi as u32);
            }
        }
        Self { numbers, agent_groups }
    }

    /// Agent `h`'s number, if a group names it.
    #[must_use]
    pub fn number(&self, h: AgentHandle) -> Option<u32> {
        self.numbers.get(h.index as usize).copied().filter(|&a| a != u32::MAX)
    }

    /// The group index of each agent number.
    #[must_use]
    pub fn agent_groups(&self) -> &[u32] {
        &self.agent_groups
    }

    /// Agents numbered (those of the world as built).
    #[must_use]
    pub fn len(&self) -> usize {
        self.agent_groups.len()
    }

    /// True when no agent is numbered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.agent_groups.is_empty()
    }
}
