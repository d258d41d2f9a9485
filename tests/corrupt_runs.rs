//! A saved run damaged in its figures is refused at load, naming the file
//! and the metric: a fixed set of the mutations the `run_mutations` fuzz
//! target makes at random, applied to a real saved run.

use std::path::Path;

use serde_json::{json, Value};

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
    let id = v["metrics"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    type Mutation = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Mutation, &str)> = vec![
        (
            "negative sample time",
            Box::new(|m| m["times_ns"][1] = json!(-5.0)),
            "sample time -5",
        ),
        (
            "zero iterations",
            Box::new(|m| m["iters"][0] = json!(0.0)),
            "iteration count 0",
        ),
        (
            "no samples",
            Box::new(|m| {
                m["iters"] = json!([]);
                m["times_ns"] = json!([]);
            }),
            "0 iteration counts",
        ),
        (
            "lengths differ",
            Box::new(|m| {
                m["iters"].as_array_mut().unwrap().pop();
            }),
            "sample times",
        ),
        // JSON has no NaN: an overflowing figure is what a file can hold.
        (
            "infinite statistic",
            Box::new(|m| m["median_ns"] = json!("NaN")),
            "is corrupt",
        ),
        (
            "rep sizes off",
            Box::new(|m| m["rep_sizes"] = json!([1, 2])),
            "rep_sizes",
        ),
        (
            "zero bytes",
            Box::new(|m| m["bytes_per_iter"] = json!(0)),
            "bytes_per_iter 0",
        ),
        (
            "negative activity",
            Box::new(|m| m["activity"][0]["wall_s"] = json!(-1.0)),
            "wall_s -1",
        ),
        (
            "a key removed",
            Box::new(|m| {
                m.as_object_mut().unwrap().remove("times_ns");
            }),
            "is corrupt",
        ),
        (
            "a type changed",
            Box::new(|m| m["iters"] = json!("23")),
            "is corrupt",
        ),
    ];
    for (what, mutate, needle) in cases {
        let mut bad = v.clone();
        mutate(&mut bad["metrics"][&id]);
        let e = load(&bad, &machine)
            .map(|_| ())
            .expect_err(what)
            .to_string();
        assert!(e.contains("run.json is corrupt"), "{what}: {e}");
        assert!(e.contains(needle), "{what}: want {needle:?} in {e}");
        if needle != "is corrupt" {
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
