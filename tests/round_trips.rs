//! Round trips as properties (proptest): a run saved and loaded again is
//! the same run, whatever its figures, facts and names; a size token
//! formatted and parsed again is the same size, and every parser of size
//! tokens agrees on the tokens the catalog spells.

use std::collections::BTreeMap;

use lmbench::run::{Meta, MetricStats, Origin, Run};
use lmbench::store::{self, SaveOptions};
use lmbench_support::catalog::all_metrics;
use lmbench_support::machine::Facts;
use lmbench_support::{bw, size};
use proptest::prelude::*;

/// A figure as Criterion writes one: finite, positive (zero included for
/// spreads), from tiny to huge.
fn figure() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        prop::num::f64::POSITIVE | prop::num::f64::NORMAL,
        (1u64..1_000_000_000).prop_map(|n| n as f64),
    ]
}

/// A sample's time as a loader takes one: finite and > 0 (and so is its
/// time per iteration, for counts up to a million).
fn sample_time() -> impl Strategy<Value = f64> {
    prop_oneof![
        prop::num::f64::POSITIVE | prop::num::f64::NORMAL,
        (1u64..1_000_000_000).prop_map(|n| n as f64),
    ]
}

fn stats() -> impl Strategy<Value = MetricStats> {
    (1usize..12)
        .prop_flat_map(|n| {
            // Pooled runs' sizes add up to the samples (or are absent).
            let splits = (1..n).map(|k| vec![k, n - k]);
            let round_sizes: Vec<Vec<usize>> =
                [vec![], vec![n]].into_iter().chain(splits).collect();
            (
                prop::collection::vec(figure(), 6),
                prop::collection::vec((1u64..1_000_000).prop_map(|i| i as f64), n),
                prop::collection::vec(sample_time(), n),
                prop::option::of(1u64..),
                prop::sample::select(round_sizes),
            )
        })
        .prop_map(
            |(f, iters, times_ns, bytes_per_iter, round_sizes)| MetricStats {
                median_ns: f[0],
                mean_ns: f[1],
                mean_ci_ns: (f[2], f[3]),
                min_ns: f[4],
                mad_ns: f[5],
                std_dev_ns: f[5],
                iters,
                times_ns,
                bytes_per_iter,
                round_sizes,
                activity: Vec::new(),
                clock_ns: Vec::new(),
            },
        )
}

/// A machine name or label: what `check_name` allows.
fn name() -> impl Strategy<Value = String> {
    let first = prop::sample::select(('a'..='z').chain('0'..='9').collect::<Vec<_>>());
    let rest = prop::collection::vec(
        prop::sample::select(
            ('a'..='z')
                .chain('A'..='Z')
                .chain('0'..='9')
                .chain(['.', '_', '-'])
                .collect::<Vec<_>>(),
        ),
        0..63,
    );
    (first, rest).prop_map(|(f, r)| std::iter::once(f).chain(r).collect())
}

fn run() -> impl Strategy<Value = Run> {
    let ids: Vec<&'static str> = all_metrics().map(|m| m.id).collect();
    (
        prop::collection::btree_map(prop::sample::select(ids), stats(), 1..6),
        prop::collection::btree_map(any::<String>(), prop::option::of(any::<String>()), 0..6),
        (
            any::<String>(),
            prop::option::of(any::<String>()),
            any::<u32>(),
        ),
    )
        .prop_map(|(metrics, facts, (text, commit, runs_pooled))| Run {
            machine: Facts(facts),
            metrics: metrics
                .into_iter()
                .map(|(id, s)| (id.to_string(), s))
                .collect::<BTreeMap<_, _>>(),
            origin: Origin::Live,
            meta: Meta {
                suite_version: text.clone(),
                commit,
                criterion_version: Some(text.clone()),
                date: text,
                runs_pooled,
                failed: Default::default(),
            },
            imported: None,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_saved_run_loads_back_unchanged(run in run(), machine in name(), label in name()) {
        let root = tempfile::tempdir().unwrap();
        let opts = SaveOptions {
            machine: &machine,
            label: &label,
            force: false,
            summary: "tables\n",
            profiles: &[],
        };
        let dir = store::save(root.path(), &run, &opts).unwrap();
        let back = store::load(&dir).unwrap();
        prop_assert_eq!(&back.metrics, &run.metrics);
        prop_assert_eq!(&back.machine, &run.machine);
        prop_assert_eq!(&back.meta, &run.meta);
        prop_assert_eq!(
            back.origin,
            Origin::Saved { machine: machine.clone(), label: label.clone(), dir: dir.clone() }
        );
        // Nothing but the run itself is left in the machine's directory.
        let left: Vec<_> = std::fs::read_dir(root.path().join(&machine))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        prop_assert_eq!(left, vec![label.clone()]);
    }

    #[test]
    fn size_tokens_round_trip(bytes in any::<u64>()) {
        let token = size::name(bytes);
        prop_assert_eq!(size::parse(&token).ok(), Some(bytes));
        // The bandwidth benches parse the same tokens with bw::parse_size.
        prop_assert_eq!(bw::parse_size(&token).map(|b| b as u64), Some(bytes));
    }

    #[test]
    fn parsed_size_tokens_format_canonically(token in "[0-9]{1,21}[bkmg]?") {
        if let Ok(bytes) = size::parse(&token) {
            let canonical = size::name(bytes);
            prop_assert_eq!(size::parse(&canonical).ok(), Some(bytes));
            prop_assert!(canonical.len() <= token.len() + 1, "{} -> {}", token, canonical);
        }
    }
}
