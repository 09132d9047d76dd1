//! Formations of entities (2D): formed once every member is an agent, formed anew when the
//! component changes, disbanded when it goes.

use crate::sync::{step, sync_agents};
use crate::targets::named;
use crate::{Space, SteerCrowd, SteerFormation, SteerFormationId, SteerSystems};
use bevy_app::App;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::InternedScheduleLabel;
use bevy_math::Vec2;
use bevy_transform::components::Transform;
use steerkit::crowd::{AgentHandle, FormationId};

/// The id a formation the crowd refused is marked with, so it is reported once.
const REFUSED: FormationId = FormationId(u32::MAX);

pub(crate) fn add_systems(app: &mut App, schedule: InternedScheduleLabel) {
    app.add_systems(
        schedule,
        (
            (reform, form_up).chain().after(sync_agents::<Vec2>).before(step::<Vec2>),
            move_anchors.after(step::<Vec2>),
        )
            .in_set(SteerSystems::Step),
    );
}

/// Disbands the formations whose component went (or whose entity was despawned) and those
/// whose component changed; the changed ones are formed again by `form_up`, from the anchor's
/// current state.
fn reform(
    mut commands: Commands,
    mut steer: ResMut<SteerCrowd<Vec2>>,
    mut removed: RemovedComponents<SteerFormation>,
    mut changed: Query<(Entity, &mut SteerFormation, &SteerFormationId), Changed<SteerFormation>>,
) {
    for e in removed.read() {
        if let Some(id) = steer.formations.remove(&e) {
            let _ = steer.crowd.disband_formation(id);
            steer.targets_dirty = true;
        }
        if let Ok(mut entity) = commands.get_entity(e) {
            entity.remove::<SteerFormationId>();
        }
    }
    steer.targets_dirty |= !changed.is_empty();
    for (e, mut f, id) in &mut changed {
        if let Some(anchor) = steer.crowd.formation(id.0).map(|m| *m.anchor()) {
            // bypass_change_detection: this write is the plugin's, not a new edit
            f.bypass_change_detection().manager.set_anchor(anchor);
        }
        steer.formations.remove(&e);
        let _ = steer.crowd.disband_formation(id.0);
        commands.entity(e).remove::<SteerFormationId>();
    }
}

/// Starts formations whose members are all agents now.
fn form_up(
    mut commands: Commands,
    mut steer: ResMut<SteerCrowd<Vec2>>,
    waiting: Query<(Entity, &SteerFormation), Without<SteerFormationId>>,
    transforms: Query<&Transform>,
) {
    for (e, f) in &waiting {
        let Some(members) =
            f.members.iter().map(|m| steer.handle(*m)).collect::<Option<Vec<AgentHandle>>>()
        else {
            continue; // a member has not entered the crowd yet
        };
        steer.track(&named(&f.anchor), &transforms);
        steer.targets_dirty = true;
        let anchor = f.anchor.map_refs(&|x| steer.resolve(x), &|p| *p);
        let id = match steer.crowd.add_formation(f.manager.clone(), &members, anchor) {
            Ok(id) => {
                steer.formations.insert(e, id);
                id
            }
            Err(err) => {
                steer.reject(e, format!("formation refused: {err}"));
                REFUSED
            }
        };
        commands.entity(e).insert(SteerFormationId(id));
    }
}

/// Moves each formation entity's `Transform` to its anchor.
fn move_anchors(
    steer: Res<SteerCrowd<Vec2>>,
    mut formations: Query<(&SteerFormationId, &mut Transform)>,
) {
    for (id, mut t) in &mut formations {
        if let Some(m) = steer.crowd.formation(id.0) {
            let a = m.anchor();
            Vec2::to_transform(a.position, a.orientation, &mut t);
        }
    }
}
