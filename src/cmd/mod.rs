//! The subcommands of `lmbench`, one file each.

pub mod compare;
pub mod export;
pub mod import;
pub mod list;
pub mod plot;
pub mod profile;
pub mod restore;
pub mod run;
pub mod save;
pub mod serve;
pub mod summary;
