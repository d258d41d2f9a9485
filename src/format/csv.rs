//! CSV: the report's records, one line each, a field quoted where it needs
//! it (the `csv` crate's rules, RFC 4180); figures at full precision, and
//! an empty field where there is none, as spreadsheets and pandas read a
//! missing value.

use anyhow::Result;

use super::document::{Field, Report};
use super::Writer;

/// The CSV writer.
pub struct Csv;

impl Writer for Csv {
    fn write(&self, report: &Report) -> Result<String> {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        w.write_record(&report.records.header)?;
        for r in &report.records.rows {
            w.write_record(r.iter().map(field))?;
        }
        let bytes = w.into_inner().map_err(|e| e.into_error())?;
        Ok(String::from_utf8(bytes)?)
    }
}

fn field(f: &Field) -> String {
    match f {
        Field::Text(s) => s.clone(),
        Field::Num(v) => num(*v),
        Field::Bool(b) => b.to_string(),
    }
}

/// A figure: full precision trimmed of float noise; an empty field where
/// there is none.
fn num(v: Option<f64>) -> String {
    v.map_or_else(String::new, |v| {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::document::Records;

    #[test]
    fn csv_quotes_where_a_field_needs_it_and_leaves_missing_figures_empty() {
        let report = Report {
            records: Records {
                header: vec!["name", "note", "value"],
                rows: vec![
                    vec!["a,b".into(), "say \"hi\"\nthen go".into(), None.into()],
                    vec!["c".into(), "".into(), Some(0.1200001).into()],
                    vec!["d".into(), "x".into(), Some(3.0).into()],
                ],
            },
            ..Report::default()
        };
        assert_eq!(
            Csv.write(&report).unwrap(),
            "name,note,value\n\"a,b\",\"say \"\"hi\"\"\nthen go\",\nc,,0.12\nd,x,3\n"
        );
    }
}
