//! A real saved run (`results/vm/remote-veth-quick`) mutated as damage
//! would: values replaced (negative, zero, huge, of another type), keys
//! removed, arrays shortened, driven by the input's bytes, then loaded with
//! `store::parse_run`. Beyond no panic: a run that loads has no metric
//! with a defect and only positive, finite per-iteration figures, and a
//! refusal is one line.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use lmbench::store;
use serde_json::{json, Value};

const RUN: &str = include_str!("../../results/vm/remote-veth-quick/run.json");
const MACHINE: &str = include_str!("../../results/vm/remote-veth-quick/machine.json");

/// Every node's JSON pointer, in document order.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                pointers(c, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                pointers(c, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

fn mutate(v: &mut Value, op: u8, pick: usize) {
    let mut all = Vec::new();
    pointers(v, String::new(), &mut all);
    let Some(at) = all.get(pick % all.len()).cloned() else {
        return;
    };
    let replacements = [
        json!(-1.0),
        json!(0),
        json!(-0.0),
        json!(1e308),
        json!(-1e308),
        json!(null),
        json!("x"),
        json!(true),
        json!([]),
        json!({}),
        json!(u64::MAX),
        json!(1.5),
        json!(5e-324),
    ];
    match op % 4 {
        0 | 1 => {
            if let Some(node) = v.pointer_mut(&at) {
                *node = replacements[usize::from(op / 4) % replacements.len()].clone();
            }
        }
        2 => {
            let (parent, key) = at.rsplit_once('/').unwrap_or(("", ""));
            match v.pointer_mut(parent) {
                Some(Value::Object(m)) => {
                    m.remove(&key.replace("~1", "/").replace("~0", "~"));
                }
                Some(Value::Array(a)) => {
                    a.pop();
                }
                _ => {}
            }
        }
        _ => {
            if let Some(node) = v.pointer_mut(&at) {
                *node = Value::String(node.to_string());
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut v: Value = serde_json::from_str(RUN).expect("the seed is a saved run");
    for op in data.chunks_exact(3).take(16) {
        mutate(&mut v, op[0], usize::from(u16::from_le_bytes([op[1], op[2]])));
    }
    match store::parse_run(Path::new("/fuzz/vm/label"), &v.to_string(), MACHINE) {
        Ok(run) => {
            for (id, m) in &run.metrics {
                assert!(m.defect().is_none(), "{id} loaded with {:?}", m.defect());
                assert!(
                    m.per_iter_ns().iter().all(|x| x.is_finite() && *x > 0.0),
                    "{id}: a per-iteration figure that is not finite and > 0"
                );
            }
        }
        Err(e) => {
            let e = e.to_string();
            assert!(!e.is_empty() && !e.contains('\n'), "{e:?}");
        }
    }
});
