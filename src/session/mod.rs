//! A measuring session: what `run`, `check` and `kernels` share. The
//! commands parse their flags into [`MeasureOptions`] and print what the
//! session made; the session plans the steps, runs them in rounds, pools
//! the rounds into one run and hands each round's run to the caller's
//! [`SaveRounds`] (the store, with `run --save`).
//!
//! - `options`: what a session is asked to do;
//! - `plan`: the steps of a run (a program and a filter each);
//! - `local`: a step on this machine, through `cargo bench`;
//! - `rounds`: the order of a round and, with a budget, what a further
//!   round re-measures;
//! - `boots`: what the further rounds of a sitting of boots measure;
//! - `eta`: the time left, from the durations of earlier runs;
//! - `failures`: a failed program costs its own metrics, not the session;
//! - `measure`: the session itself, and the pooled run of its rounds.

mod local;
mod measure;
mod options;

pub mod boots;
pub mod eta;
pub mod failures;
pub mod plan;
pub mod rounds;

pub use measure::{live_run, measure, pool, Measured, SaveRounds};
pub use options::{MeasureOptions, SaveTo};
pub use rounds::{exact as exact_filter, undecided, Rng};
