//! What a summary table is made of: its [`Column`]s, where each column's
//! number comes from ([`Source`]), and what a column may ask of a run
//! ([`Lookup`]). The tables themselves live in `tables/`.

use super::{Metric, Unit};

/// What a table column needs from a run: metric figures and machine facts.
pub trait Lookup {
    /// The metric's headline figure in its own unit, if the run has it.
    fn value(&self, metric: &Metric) -> Option<f64>;
    /// A machine fact by key (see `machine::Facts::get`), if recorded.
    fn fact(&self, key: &str) -> Option<String>;
    /// A distribution-free interval of at least 95% for the metric's median,
    /// in its unit, when the run holds its samples (imported and fixture
    /// runs do not: `None`).
    fn median_interval(&self, _metric: &Metric) -> Option<(f64, f64)> {
        None
    }
}

/// The metrics a computed column reads, for `lmbench list` and the
/// catalog's tests (which check the column reads no other).
pub type Inputs = fn() -> Vec<&'static Metric>;

/// How a summary column gets its number.
#[derive(Clone, Copy)]
pub enum Source {
    /// One metric's headline figure.
    Metric(&'static Metric),
    /// The mean of several metrics (lmbench's "null I/O" = mean of read, write).
    Mean(&'static [&'static Metric]),
    /// A minus B (e.g. signal handling minus the cost of the `kill` itself).
    Minus(&'static Metric, &'static Metric),
    /// Computed by the function from the metrics [`Inputs`] lists (every
    /// one the function may read: a sweep it picks a point of, the older
    /// ids it falls back on).
    Computed(Inputs, fn(&dyn Lookup) -> Option<f64>),
    /// A machine fact printed beside the figures (the OS's clock, cache
    /// line, CPU count): shown, but never what makes a table worth
    /// printing for a run that measured none of its figures.
    Fact(fn(&dyn Lookup) -> Option<f64>),
}

impl Source {
    /// Evaluates the column for one run.
    pub fn eval(&self, run: &dyn Lookup) -> Option<f64> {
        match *self {
            Source::Metric(m) => run.value(m),
            Source::Mean(ms) => {
                let vals: Option<Vec<f64>> = ms.iter().map(|m| run.value(m)).collect();
                let vals = vals?;
                (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64)
            }
            Source::Minus(a, b) => Some(run.value(a)? - run.value(b)?),
            Source::Computed(_, f) | Source::Fact(f) => f(run),
        }
    }

    /// The metrics this column reads (for listings and completeness tests).
    pub fn metrics(&self) -> Vec<&'static Metric> {
        match *self {
            Source::Metric(m) => vec![m],
            Source::Mean(ms) => ms.to_vec(),
            Source::Minus(a, b) => vec![a, b],
            Source::Computed(inputs, _) => inputs(),
            Source::Fact(_) => vec![],
        }
    }

    /// True when the column shows a figure this run measured: a value, and
    /// for a computed column one of the metrics it reads (the clock column
    /// falls back on the OS's figure). Facts never count.
    pub fn measured(&self, run: &dyn Lookup) -> bool {
        match *self {
            Source::Fact(_) => false,
            Source::Computed(inputs, _) => {
                inputs().iter().any(|m| run.value(m).is_some()) && self.eval(run).is_some()
            }
            _ => self.eval(run).is_some(),
        }
    }
}

/// One column of a summary table.
#[derive(Clone, Copy)]
pub struct Column {
    /// Two header lines, as lmbench prints them ("null" / "call").
    pub header: [&'static str; 2],
    /// Field width in characters.
    pub width: usize,
    pub source: Source,
    /// The unit of the figures when neither the metric read nor the table
    /// says it (the clock, in MHz, in a table of microseconds).
    pub unit: Option<Unit>,
}

impl Column {
    pub const fn new(
        top: &'static str,
        bottom: &'static str,
        width: usize,
        source: Source,
    ) -> Self {
        Column {
            header: [top, bottom],
            width,
            source,
            unit: None,
        }
    }

    /// The same column, its figures in `unit`.
    pub const fn in_unit(self, unit: Unit) -> Self {
        Column {
            unit: Some(unit),
            ..self
        }
    }

    /// The unit of the column's figures in `table`: its own, else the
    /// metric's it shows, else the table's (a computed figure).
    pub fn unit(&self, table: &Table) -> Unit {
        match (self.unit, self.source) {
            (Some(u), _) => u,
            (None, Source::Metric(m) | Source::Minus(m, _)) => m.unit,
            (None, Source::Mean(ms)) => ms.first().map_or(table.unit, |m| m.unit),
            (None, Source::Computed(..) | Source::Fact(_)) => table.unit,
        }
    }
}

/// One lmbench summary table. Every row starts with Host and OS.
pub struct Table {
    /// Stable key for `--table` filters and file names.
    pub key: &'static str,
    /// lmbench's title line.
    pub title: &'static str,
    /// The unit of the figures, for exports.
    pub unit: Unit,
    pub columns: &'static [Column],
    /// Lines printed under the table for one run (the sizes and points a
    /// computed column used, caps, lmbench's "Guesses"): [`no_notes`] for
    /// most tables.
    pub notes: fn(&dyn Lookup) -> Vec<String>,
}

/// The notes of a table that has none.
pub fn no_notes(_: &dyn Lookup) -> Vec<String> {
    Vec::new()
}

impl Table {
    /// Column `i`'s name on one line: "null call", "0K File Delete" (a
    /// column with an empty top header continues the previous one's when
    /// that one spans into it, as lmbench's layout does).
    pub fn column_name(&self, i: usize) -> String {
        let c = &self.columns[i];
        let top = match i.checked_sub(1).map(|p| &self.columns[p]) {
            Some(p) if c.header[0].is_empty() && p.header[0].len() > p.width => p.header[0],
            _ => c.header[0],
        };
        format!("{top} {}", c.header[1]).trim().to_string()
    }

    /// The key of column `i` outside the catalog (imported figures):
    /// `table key/column name`.
    pub fn cell_key(&self, i: usize) -> String {
        format!("{}/{}", self.key, self.column_name(i))
    }
}
