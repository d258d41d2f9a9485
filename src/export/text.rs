//! Text: fixed-width columns, right-aligned figures, dashed rules, and
//! busy notes as `  * ` lines under the table.

use super::fmt_num;

/// A figure in `width` characters: `-` where there is none; a busy one
/// ends in `*` and keeps the width by showing one digit fewer.
pub fn figure(value: Option<f64>, busy: bool, width: usize) -> String {
    match (value, busy) {
        (None, _) => "-".into(),
        (Some(v), false) => fmt_num(v, width),
        (Some(v), true) => format!("{}*", fmt_num(v, width.saturating_sub(1))),
    }
}

/// Appends `s` as a line, its trailing blanks trimmed (a row's last
/// column may be empty).
pub fn push_line(out: &mut String, s: &str) {
    out.push_str(s.trim_end());
    out.push('\n');
}

/// A rule of dashes under the header, one run per column `widths` wide.
pub fn rule(widths: &[usize]) -> String {
    widths
        .iter()
        .map(|w| "-".repeat(*w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The busy notes under a table, one `  * ` line each.
pub fn busy_notes(notes: &[String]) -> String {
    notes.iter().map(|n| format!("  * {n}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_figure_keeps_its_width_with_one_digit_fewer() {
        assert_eq!(figure(Some(0.0812), false, 6), "0.0812");
        assert_eq!(figure(Some(0.0812), true, 6), "0.081*");
        assert_eq!(figure(None, true, 6), "-");
        assert_eq!(rule(&[2, 3]), "-- ---");
    }
}
