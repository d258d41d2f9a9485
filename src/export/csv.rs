//! CSV: one record per row, a field quoted where it needs it (the `csv`
//! crate's rules, RFC 4180); figures at full precision, and an empty field
//! where there is none, as spreadsheets and pandas read a missing value.

use anyhow::Result;

/// A figure: full precision trimmed of float noise; an empty field where
/// there is none.
pub fn num(v: Option<f64>) -> String {
    v.map_or_else(String::new, |v| {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    })
}

/// The document: the comma-separated column names `header`, then
/// `records`, one line each.
pub fn document(header: &str, records: impl IntoIterator<Item = Vec<String>>) -> Result<String> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(header.split(','))?;
    for r in records {
        w.write_record(&r)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_where_a_field_needs_it_and_leaves_missing_figures_empty() {
        let text = document(
            "name,note,value",
            [
                vec!["a,b".into(), "say \"hi\"\nthen go".into(), num(None)],
                vec!["c".into(), String::new(), num(Some(0.1200001))],
                vec!["d".into(), "x".into(), num(Some(3.0))],
            ],
        )
        .unwrap();
        assert_eq!(
            text,
            "name,note,value\n\"a,b\",\"say \"\"hi\"\"\nthen go\",\nc,,0.12\nd,x,3\n"
        );
    }
}
