//! The reports, each a model (`format::document::Report`) that the
//! writers in `format` lay out in the format asked for: `summary`
//! (lmbench's tables), `floor_ratios` (`summary --floors`), `compare` (two
//! runs with samples: `compare`, and what `check`, `run --against` and
//! `kernels` print) and `imported` (a comparison with an imported run,
//! which has figures but no samples). Each builds its model with
//! `report(...)`; `render(...)`, where there is one, is that model as
//! text, for the commands that print it as they go.

pub mod compare;
pub mod floor_ratios;
pub mod imported;
pub mod summary;

pub use summary::{render, Options};
