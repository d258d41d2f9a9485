//! A saved run damaged in its figures is refused at load, naming the file
//! and the metric: a fixed set of the mutations the `run_mutations` fuzz
//! target makes at random, applied to a real saved run.

use std::path::Path;

use serde_json::Value;

mod common;
use common::damage;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/results/vm/remote-veth-quick");

fn seed() -> (Value, String) {
    let run = std::fs::read_to_string(format!("{DIR}/run.json")).unwrap();
    let machine = std::fs::read_to_string(format!("{DIR}/machine.json")).unwrap();
    (serde_json::from_str(&run).unwrap(), machine)
}

fn load(v: &Value, machine: &str) -> anyhow::Result<lmbench::run::Run> {
    lmbench::store::parse_run(Path::new("/r/vm/x"), &v.to_string(), machine)
}

#[test]
fn the_seed_loads() {
    let (v, machine) = seed();
    let run = load(&v, &machine).unwrap();
    assert!(!run.metrics.is_empty());
}

#[test]
fn damaged_figures_are_refused_naming_the_metric() {
    let (v, machine) = seed();
    let id = damage::first_metric(&v);
    for d in damage::damages() {
        assert!(
            d.applies_to(&v["metrics"][&id]),
            "{}: the seed lacks it",
            d.what
        );
        let mut bad = v.clone();
        (d.mutate)(&mut bad["metrics"][&id]);
        let what = d.what;
        let e = load(&bad, &machine)
            .map(|_| ())
            .expect_err(what)
            .to_string();
        assert!(e.contains("run.json is corrupt"), "{what}: {e}");
        assert!(e.contains(d.needle), "{what}: want {:?} in {e}", d.needle);
        if d.named {
            assert!(e.contains(&format!("{id} has")), "{what}: {e}");
        }
        assert_eq!(e.lines().count(), 1, "{what}: {e}");
    }
    // A figure too large for a float: refused by the parser itself.
    let text = v
        .to_string()
        .replacen("\"median_ns\":", "\"median_ns\":1e999,\"x\":", 1);
    let e = lmbench::store::parse_run(Path::new("/r/vm/x"), &text, &machine).unwrap_err();
    assert!(e.to_string().contains("corrupt"), "{e}");
}

#[test]
fn optional_fields_may_be_missing() {
    let (mut v, machine) = seed();
    for m in v["metrics"].as_object_mut().unwrap().values_mut() {
        let m = m.as_object_mut().unwrap();
        for key in ["activity", "rep_sizes", "clock_ns", "bytes_per_iter"] {
            m.remove(key);
        }
    }
    load(&v, &machine).unwrap();
}
