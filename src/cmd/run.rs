//! `lmbench run [--quick] [FILTER]`: runs the suite's Criterion groups
//! through `cargo bench`, one program at a time, with a line of progress per
//! group, then prints the summary. Criterion's own output goes to
//! `target/lmbench/run.log`; its "time:" lines are echoed as they come.
//! The measuring is the library's session (`lmbench::session`); this
//! file is the flags and what is printed.

use anyhow::Result;

use crate::saving::RunSaver;
use lmbench::flags::{Budget, Count, Label, MachineName, MetricFilter, Percent, RunSpec, Secs};
use lmbench::session::{failures, MeasureOptions, Measured, SaveTo};

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The quick preset: 10 samples of every metric, about 3 minutes of
    /// benching for the whole suite on 2 cores (the default: about 13).
    #[arg(long)]
    pub quick: bool,
    /// Before starting, wait until other work uses under 5% of a CPU,
    /// at most SECS seconds (`--wait-idle=SECS`, 1 to 86400, default
    /// 300), then start anyway.
    #[arg(
        long,
        value_name = "SECS",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "300"
    )]
    pub wait_idle: Option<Secs>,
    /// Only metrics whose id matches this regular expression.
    pub filter: Option<MetricFilter>,
    /// Repeat the suite N times (1 to 1000), each round in a new random
    /// order of programs; with --save, one run pools all samples.
    #[arg(long, default_value = "1", conflicts_with = "budget")]
    pub runs: Count,
    /// Spend this long (90s, 15m, 1h; at most 168h; the first round
    /// whatever it takes): after a first round of everything, re-measure
    /// only the metrics still undecided (those behind lmbench's own
    /// columns first, then the summary's other columns, then the rest),
    /// until each is decided or the time is up.
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<Budget>,
    /// With --budget: undecided means against this run (a baseline,
    /// MACHINE/LABEL), and the comparison is printed at the end.
    #[arg(long, value_name = "RUN", requires = "budget")]
    pub against: Option<RunSpec>,
    /// With --budget: the change that matters, percent (what "decided"
    /// means, as `compare --threshold`).
    #[arg(long, default_value = "5", value_name = "PCT", requires = "budget")]
    pub threshold: Percent,
    /// At the end, save the run as results/<machine>/<LABEL>/.
    #[arg(long, value_name = "LABEL")]
    pub save: Option<Label>,
    /// With --save: the machine name (default: the host name).
    #[arg(long, requires = "save")]
    pub machine: Option<MachineName>,
    /// With --save: replace an existing label.
    #[arg(long, requires = "save")]
    pub force: bool,
    /// Only the metrics that have a floor (FILTER narrows them), each
    /// right before its floor (every run orders them so; this skips the
    /// rest), for the ratios of `summary --floors`. With --runs N the
    /// pairs are alternated N times and each round's ratios printed.
    #[arg(long)]
    pub paired: bool,
    /// Stop at the first program that fails, saving nothing. By default
    /// the run goes on past it, as lmbench's own scripts do: the other
    /// programs are measured and saved, the failed metrics are saved as
    /// failed with their reason, the failures are listed at the end, and
    /// the exit status is 3.
    #[arg(long)]
    pub fail_fast: bool,
    /// What a run does by default (going on past a failed program); kept
    /// so that older scripts still run.
    #[arg(long, hide = true, conflicts_with = "fail_fast")]
    pub keep_going: bool,
}

impl Args {
    /// Where the session's rounds are saved (`--save`).
    pub fn save_to(&self) -> Option<SaveTo> {
        self.save.clone().map(|label| SaveTo {
            label,
            machine: self.machine.clone(),
            force: self.force,
        })
    }

    /// The session these flags ask for.
    pub fn options(&self) -> MeasureOptions {
        MeasureOptions {
            quick: self.quick,
            wait_idle: self.wait_idle,
            filter: self.filter.clone(),
            runs: self.runs,
            budget: self.budget,
            against: self.against.clone(),
            threshold: self.threshold,
            paired: self.paired,
            fail_fast: self.fail_fast,
        }
    }
}

/// `lmbench run`: measure, print the summary (and the comparison with
/// `--against`).
pub fn run(args: Args) -> Result<()> {
    let opts = args.options();
    let mut saver = args.save_to().map(RunSaver::new);
    let Measured {
        run,
        against,
        failed,
    } = lmbench::session::measure(
        &opts,
        saver
            .as_mut()
            .map(|s| s as &mut dyn lmbench::session::SaveRounds),
    )?;
    print!("{}", crate::report::render(std::slice::from_ref(&run))?);
    if let Some(old) = against {
        let busy = lmbench_support::activity::BUSY_CPUS;
        let c = crate::verdict::compare(
            &old,
            &run,
            &crate::verdict::Options {
                busy_cpus: busy,
                ..crate::verdict::Options::at(opts.threshold.get())
            },
        );
        print!("\n{}", crate::report::compare::render(&old, &run, &c, busy));
    }
    if !failed.is_empty() {
        let partial = failures::Partial {
            failed,
            log: lmbench::lock::work_dir().join("run.log"),
            saved: saver.is_some(),
        };
        eprint!("\n{}", partial.list());
        return Err(partial.into());
    }
    Ok(())
}
