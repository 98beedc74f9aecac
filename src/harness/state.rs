//! State that the rows of one run share, passed to every benchmark through its context
//! rather than kept in globals: the `load` family's calibrated work and single-copy
//! baselines, for instance, so that `Inc` compares like with like within a run and two runs
//! in one process (tests, `ab`) never see each other's.
//!
//! The harness knows nothing of what is kept: each family keeps one value of a type of its
//! own, made with `Default` the first time it is asked for, and shared as an
//! `Arc<Mutex<T>>` that a workload may hold until it is dropped.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Default)]
pub struct RunState {
    slots: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

/// One family's shared value in a run.
pub type Shared<T> = Arc<Mutex<T>>;

impl RunState {
    pub fn new() -> RunState {
        RunState::default()
    }

    /// This run's value of type `T`, made by `Default` the first time.
    pub fn get<T: Default + Send + 'static>(&self) -> Shared<T> {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        let slot = slots
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(Mutex::new(T::default())));
        Arc::clone(slot)
            .downcast::<Mutex<T>>()
            .expect("the slot of a type holds that type")
    }
}

/// The ids this process will still measure after the row being measured, in order (set
/// by the harness before each row of a run; empty outside one). A family that keeps
/// something between its rows (the `mem` rows' touched buffers) lets it go once none of
/// its rows follow.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct Upcoming(pub Vec<String>);

impl Upcoming {
    /// Whether an id starting with `prefix` is still to come.
    pub fn any_starts_with(&self, prefix: &str) -> bool {
        self.0.iter().any(|id| id.starts_with(prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Baselines(Vec<u32>);

    fn push(state: &RunState, v: u32) {
        state.get::<Baselines>().lock().unwrap().0.push(v);
    }

    #[test]
    fn each_type_has_one_value_per_run() {
        let a = RunState::new();
        push(&a, 1);
        push(&a, 2);
        assert_eq!(a.get::<Baselines>().lock().unwrap().0, vec![1, 2]);
        assert_eq!(
            *a.get::<u64>().lock().unwrap(),
            0,
            "another type, another value"
        );
        let b = RunState::new();
        assert!(
            b.get::<Baselines>().lock().unwrap().0.is_empty(),
            "runs do not share"
        );
    }
}
