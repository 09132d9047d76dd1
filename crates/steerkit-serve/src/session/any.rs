//! A live simulation of either space: what a connection holds.

use super::*;

/// A live simulation of either space: what a connection holds.
pub enum AnySession {
    /// A 2D scenario.
    Two(Session),
    /// A 3D scenario (`dimensions = 3`, y up).
    Three(Session3),
}

macro_rules! each {
    ($s:expr, $x:ident => $e:expr) => {
        match $s {
            AnySession::Two($x) => $e,
            AnySession::Three($x) => $e,
        }
    };
}

impl AnySession {
    /// Loads TOML text in the scenario's own space.
    ///
    /// # Errors
    /// As [`Sim::from_toml`].
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, String> {
        // the session's cap is checked from the file's counts, before any agent is placed
        let scenario =
            Scenario::from_toml_str_with_max_agents(text, origin, MAX_AGENTS).map_err(err)?;
        if scenario.dimensions() == 3 {
            Sim::from_scenario(&scenario, text, origin).map(AnySession::Three)
        } else {
            Sim::from_scenario(&scenario, text, origin).map(AnySession::Two)
        }
    }

    /// 2 or 3.
    #[must_use]
    pub fn dims(&self) -> usize {
        match self {
            AnySession::Two(_) => 2,
            AnySession::Three(_) => 3,
        }
    }

    /// As [`Sim::name`].
    #[must_use]
    pub fn name(&self) -> &str {
        each!(self, s => s.name())
    }
    /// As [`Sim::step_count`].
    #[must_use]
    pub fn step_count(&self) -> u64 {
        each!(self, s => s.step_count())
    }
    /// As [`Sim::dt`].
    #[must_use]
    pub fn dt(&self) -> f32 {
        each!(self, s => s.dt())
    }
    /// As [`Sim::agent_count`].
    #[must_use]
    pub fn agent_count(&self) -> usize {
        each!(self, s => s.agent_count())
    }
    /// As [`Sim::params`].
    #[must_use]
    pub fn params(&self) -> &[Param] {
        each!(self, s => s.params())
    }
    /// The groups' names, in file order.
    #[must_use]
    pub fn group_names(&self) -> Vec<String> {
        each!(self, s => s.world().groups.iter().map(|g| g.name.clone()).collect())
    }
    /// As [`Sim::step`].
    ///
    /// # Errors
    /// As [`Sim::step`].
    pub fn step(&mut self) -> Result<(), String> {
        each!(self, s => s.step())
    }
    /// As [`Sim::reset`].
    ///
    /// # Errors
    /// As [`Sim::reset`].
    pub fn reset(&mut self) -> Result<(), String> {
        each!(self, s => s.reset())
    }
    /// As [`Sim::select`].
    ///
    /// # Errors
    /// As [`Sim::select`].
    pub fn select(&mut self, id: Option<u64>) -> Result<(), String> {
        each!(self, s => s.select(id))
    }
    /// As [`Sim::selected`].
    #[must_use]
    pub fn selected(&self) -> Option<usize> {
        each!(self, s => s.selected())
    }
    /// As [`Sim::move_goal`].
    ///
    /// # Errors
    /// As [`Sim::move_goal`].
    pub fn move_goal(
        &mut self,
        agent: Option<u64>,
        group: Option<&str>,
        p: Point,
    ) -> Result<(), String> {
        each!(self, s => s.move_goal(agent, group, p))
    }
    /// As [`Sim::move_goals`].
    ///
    /// # Errors
    /// As [`Sim::move_goals`].
    pub fn move_goals(&mut self, agents: &[u64], p: Point) -> Result<(), String> {
        each!(self, s => s.move_goals(agents, p))
    }
    /// As [`Sim::move_target`].
    ///
    /// # Errors
    /// As [`Sim::move_target`].
    pub fn move_target(&mut self, path: &str, p: Point) -> Result<(), String> {
        each!(self, s => s.move_target(path, p))
    }
    /// As [`Sim::move_obstacle`].
    ///
    /// # Errors
    /// As [`Sim::move_obstacle`].
    pub fn move_obstacle(&mut self, id: u64, p: Point) -> Result<(), String> {
        each!(self, s => s.move_obstacle(id, p))
    }
    /// As [`Sim::move_wall_end`].
    ///
    /// # Errors
    /// As [`Sim::move_wall_end`].
    pub fn move_wall_end(&mut self, id: u64, end: u64, p: Point) -> Result<(), String> {
        each!(self, s => s.move_wall_end(id, end, p))
    }
    /// As [`Sim::move_turret`].
    ///
    /// # Errors
    /// As [`Sim::move_turret`].
    pub fn move_turret(&mut self, id: u64, p: Point) -> Result<(), String> {
        each!(self, s => s.move_turret(id, p))
    }
    /// As [`Sim::add_agent`].
    ///
    /// # Errors
    /// As [`Sim::add_agent`].
    pub fn add_agent(&mut self, group: &str, p: Point) -> Result<(), String> {
        each!(self, s => s.add_agent(group, p))
    }
    /// As [`Sim::remove_agent`].
    ///
    /// # Errors
    /// As [`Sim::remove_agent`].
    pub fn remove_agent(&mut self, id: u64) -> Result<(), String> {
        each!(self, s => s.remove_agent(id))
    }
    /// As [`Sim::set_param`].
    ///
    /// # Errors
    /// As [`Sim::set_param`].
    pub fn set_param(&mut self, path: &str, value: f64) -> Result<(), String> {
        each!(self, s => s.set_param(path, value))
    }
    /// As [`Sim::save_toml`].
    ///
    /// # Errors
    /// As [`Sim::save_toml`].
    pub fn save_toml(&self) -> Result<String, String> {
        each!(self, s => s.save_toml())
    }
    /// As [`Sim::handles`].
    #[must_use]
    pub fn handles(&self) -> Vec<Handle> {
        each!(self, s => s.handles())
    }
    /// As [`Sim::recording`].
    #[must_use]
    pub fn recording(&self) -> Value {
        each!(self, s => s.recording())
    }
    /// As [`Sim::frame_json`].
    #[must_use]
    pub fn frame_json(&self) -> String {
        each!(self, s => s.frame_json())
    }
    /// True when the scenario has turrets.
    #[must_use]
    pub fn has_turrets(&self) -> bool {
        each!(self, s => !s.sim.ballistics().is_empty())
    }
    /// As [`Sim::shots`].
    #[must_use]
    pub fn shots(&self) -> Vec<Shot> {
        each!(self, s => s.shots())
    }
    /// As [`Sim::turret_metrics`].
    #[must_use]
    pub fn turret_metrics(&self) -> Vec<TurretMetrics> {
        each!(self, s => s.turret_metrics())
    }
}
