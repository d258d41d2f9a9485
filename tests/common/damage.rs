//! Damage done to one metric of a saved run's JSON, with what the refusal
//! must say: the fixed cases that both the loader's tests and the CLI's
//! tests apply (the `run_mutations` fuzz target makes such changes at
//! random).

use serde_json::{json, Value};

pub type Mutation = Box<dyn Fn(&mut Value)>;

/// One damage: what it is, how it is done to a metric's object, and the
/// text the error must hold. `named` says the error names the metric
/// (`ID has ...`); a malformed document is refused by the parser before
/// any metric is read.
pub struct Damage {
    pub what: &'static str,
    pub mutate: Mutation,
    pub needle: &'static str,
    pub named: bool,
    /// A field the metric must already have for the damage to apply.
    pub needs: Option<&'static str>,
}

impl Damage {
    /// Whether the damage applies to this metric's object.
    pub fn applies_to(&self, metric: &Value) -> bool {
        self.needs.is_none_or(|key| metric.get(key).is_some())
    }
}

fn damage(what: &'static str, needle: &'static str, mutate: Mutation) -> Damage {
    Damage {
        what,
        mutate,
        needle,
        named: needle != "is corrupt",
        needs: None,
    }
}

pub fn damages() -> Vec<Damage> {
    vec![
        damage(
            "negative sample time",
            "sample time -5",
            Box::new(|m| m["times_ns"][1] = json!(-5.0)),
        ),
        damage(
            "zero iterations",
            "iteration count 0",
            Box::new(|m| m["iters"][0] = json!(0.0)),
        ),
        damage(
            "no samples",
            "0 iteration counts",
            Box::new(|m| {
                m["iters"] = json!([]);
                m["times_ns"] = json!([]);
            }),
        ),
        damage(
            "lengths differ",
            "sample times",
            Box::new(|m| {
                m["iters"].as_array_mut().expect("iters is an array").pop();
            }),
        ),
        // JSON has no NaN: an overflowing figure is what a file can hold.
        damage(
            "infinite statistic",
            "is corrupt",
            Box::new(|m| m["median_ns"] = json!("NaN")),
        ),
        damage(
            "rep sizes off",
            "rep_sizes",
            Box::new(|m| m["rep_sizes"] = json!([1, 2])),
        ),
        damage(
            "zero bytes",
            "bytes_per_iter 0",
            Box::new(|m| m["bytes_per_iter"] = json!(0)),
        ),
        Damage {
            needs: Some("activity"),
            ..damage(
                "negative activity",
                "wall_s -1",
                Box::new(|m| m["activity"][0]["wall_s"] = json!(-1.0)),
            )
        },
        damage(
            "a key removed",
            "is corrupt",
            Box::new(|m| {
                m.as_object_mut()
                    .expect("a metric is an object")
                    .remove("times_ns");
            }),
        ),
        damage(
            "a type changed",
            "is corrupt",
            Box::new(|m| m["iters"] = json!("23")),
        ),
    ]
}

/// The id of the first metric of a run's JSON.
pub fn first_metric(run: &Value) -> String {
    run["metrics"]
        .as_object()
        .and_then(|m| m.keys().next())
        .expect("the run has a metric")
        .clone()
}
