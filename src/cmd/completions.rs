//! `lmbench completions SHELL` and `lmbench man`: the shell's completion
//! script and the manual pages, both generated from the one command-line
//! definition, so they cannot drift from it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::CommandFactory;

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct ManArgs {
    /// Write lmbench.1 and a page per command (lmbench-run.1, ...) into DIR
    /// instead of printing lmbench.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `lmbench completions`.
pub fn completions(args: CompletionsArgs) -> Result<()> {
    let mut cmd = crate::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "lmbench", &mut script);
    write_stdout(&script)
}

/// `lmbench man`.
pub fn man(args: ManArgs) -> Result<()> {
    let cmd = crate::Cli::command();
    match args.dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            clap_mangen::generate_to(cmd, &dir).with_context(|| {
                format!(
                    "writing the manual pages into {} (a writable directory?)",
                    dir.display()
                )
            })?;
            eprintln!("lmbench: manual pages written to {}", dir.display());
            Ok(())
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut page)?;
            write_stdout(&page)
        }
    }
}

/// Writes `bytes` to standard output; a closed pipe comes back as the
/// error it is (see `closed_pipe`).
fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(())
}
