//! docs/reference.md's layout names one owner per concern; every file or
//! directory it names must exist, so a move or a rename that forgets the
//! reference fails here instead of sending a newcomer to a missing file.

use std::path::Path;

#[test]
fn every_owner_the_readme_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme =
        std::fs::read_to_string(root.join("docs/reference.md")).expect("docs/reference.md");
    let start = readme
        .find("\n## Layout")
        .expect("docs/reference.md has a Layout section");
    let section = &readme[start + 1..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let rows: Vec<&str> = section[..end]
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
        .skip(1)
        .collect();
    assert!(
        rows.len() >= 20,
        "the layout's table has {} rows",
        rows.len()
    );
    let mut missing = Vec::new();
    for row in rows {
        let owner = row.trim_end_matches('|').rsplit('|').next().unwrap();
        // A bare file name lives beside the path named before it in the cell.
        let mut dir = root.to_path_buf();
        for (i, token) in owner.split('`').enumerate() {
            let named = i % 2 == 1 && (token.contains('/') || token.ends_with(".rs"));
            if !named || token.contains(' ') {
                continue;
            }
            // A pattern (`benches/<program>.rs`) names its directory.
            if let Some(at) = token.find('<') {
                dir = root.join(&token[..at]);
                assert!(dir.is_dir(), "docs/reference.md's layout names {token}");
                continue;
            }
            let path = if token.contains('/') {
                root.join(token)
            } else {
                dir.join(token)
            };
            if !path.exists() {
                missing.push(format!("{token} (in: {})", row.trim()));
            }
            dir = if path.is_dir() {
                path
            } else {
                path.parent().unwrap().to_path_buf()
            };
        }
    }
    assert!(
        missing.is_empty(),
        "docs/reference.md's layout names: {missing:#?}"
    );
}
