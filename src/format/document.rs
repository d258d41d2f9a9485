//! The model every report builds and every writer reads: blocks for the
//! formats people read (text and Markdown), records for CSV and a data
//! tree for JSON. A report decides what it says (the figures, their busy
//! marks and spreads, the notes, which format shows what); a writer
//! decides only how its format lays that out.

use serde_json::Value;

/// One report, in every format.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// What text and Markdown show, in order.
    pub blocks: Vec<Block>,
    /// What CSV writes: a record per row.
    pub records: Records,
    /// What JSON writes.
    pub data: Value,
}

/// Which of the formats people read shows a block: lmbench's text layout
/// carries notes that a Markdown report for an issue leaves out, and
/// Markdown has headings where text has banners.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    Both,
    Text,
    Markdown,
}

impl Shown {
    /// True if a block shown thus appears in `text` (else in Markdown).
    pub fn in_text(self, text: bool) -> bool {
        match self {
            Shown::Both => true,
            Shown::Text => text,
            Shown::Markdown => !text,
        }
    }
}

/// A part of a report.
#[derive(Debug, Clone)]
pub enum Block {
    /// Lines written as they are (each ends in a newline; a blank line is
    /// prose too).
    Prose(Shown, String),
    Table(Shown, Table),
    /// One line per run whose figures were measured on a busy machine
    /// (`format::busy_note`), under a table.
    BusyNotes(Vec<String>),
    /// What the marks mean (`format::legend`): plain text, whose `*`
    /// Markdown escapes.
    Legend(String),
    /// Markdown only: a heading of this level (text's tables carry their
    /// own titles, and its reports open with their own lines).
    Heading(usize, String),
    /// Markdown only: a list, a blank line after it.
    List(Vec<String>),
}

/// A table: columns, then rows of cells, one per column.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Text only: a title over a dashed rule as wide as the table (or as
    /// the title, if wider).
    pub title: Option<String>,
    /// Text only: the title's rule is this wide instead (a layout older
    /// than this model, kept so its output does not change).
    pub title_rule: Option<usize>,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
    /// Text only: a dashed rule under the header lines.
    pub header_rule: bool,
    /// Text only: under each row a line of its figures' spreads, headed by
    /// this label in the last column before the first figure.
    pub spread_label: Option<String>,
}

/// How a column's cells (or header) align.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    /// Figures: right-aligned (Markdown: `---:`).
    Right,
}

/// A column.
#[derive(Debug, Clone)]
pub struct Column {
    /// The column's name: Markdown's header.
    pub name: String,
    /// Text's header lines (lmbench stacks two); empty: the name. A
    /// left-aligned header longer than the column runs on to the right.
    pub header: Vec<String>,
    /// Text: the column's width; a figure keeps as many digits as fit it
    /// (Markdown: at least 6).
    pub width: usize,
    pub align: Align,
    /// Text: how the header aligns, where it differs from the cells.
    pub header_align: Option<Align>,
    /// Text: the blanks before the column (none before the first).
    pub gap: usize,
    /// Text: a cell longer than the width is cut to it.
    pub clip: bool,
}

impl Column {
    /// A column of `width` aligned `align`, one blank after the previous.
    pub fn new(name: &str, width: usize, align: Align) -> Column {
        Column {
            name: name.to_string(),
            header: Vec::new(),
            width,
            align,
            header_align: None,
            gap: 1,
            clip: false,
        }
    }
}

/// A cell.
#[derive(Debug, Clone)]
pub enum Cell {
    Text(String),
    /// One text in the text format, another in Markdown.
    Alt {
        text: String,
        markdown: String,
    },
    /// A figure: `-` where there is none; marked `*` if measured on a
    /// busy machine; with its spread's half-width, in the figure's unit.
    Figure {
        value: Option<f64>,
        busy: bool,
        spread: Option<f64>,
    },
}

impl Cell {
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }
    /// A figure without a spread.
    pub fn figure(value: Option<f64>, busy: bool) -> Cell {
        Cell::Figure {
            value,
            busy,
            spread: None,
        }
    }
}

/// CSV's rows: the column names, then a record per row, a field per name.
#[derive(Debug, Clone, Default)]
pub struct Records {
    pub header: Vec<&'static str>,
    pub rows: Vec<Vec<Field>>,
}

/// A CSV field.
#[derive(Debug, Clone)]
pub enum Field {
    Text(String),
    /// A figure at full precision; an empty field where there is none.
    Num(Option<f64>),
    Bool(bool),
}

impl From<String> for Field {
    fn from(s: String) -> Field {
        Field::Text(s)
    }
}

impl From<&str> for Field {
    fn from(s: &str) -> Field {
        Field::Text(s.to_string())
    }
}

impl From<Option<f64>> for Field {
    fn from(v: Option<f64>) -> Field {
        Field::Num(v)
    }
}

impl From<bool> for Field {
    fn from(b: bool) -> Field {
        Field::Bool(b)
    }
}
