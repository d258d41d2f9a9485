use super::*;
use std::time::{Duration, SystemTime};

#[test]
fn clock_probes_land_on_the_samples_they_surround() {
    // Warm-up calls first, then the samples; two samples took the
    // same time, and the later calls are theirs.
    let calls = [
        [50.0, 0.30, 0.30],
        [700.0, 0.11, 0.11],
        [100.0, 0.25, 0.25],
        [200.0, 0.26, 0.27],
        [100.0, 0.24, 0.24],
    ];
    let got = sample_clocks(&[100.0, 200.0, 100.0], &calls);
    assert_eq!(got, vec![[0.25, 0.25], [0.26, 0.27], [0.24, 0.24]]);
    // A sample no call returned: no probes at all, never a guess.
    assert!(sample_clocks(&[100.0, 300.0], &calls).is_empty());
    assert!(sample_clocks(&[100.0], &[]).is_empty());
}

#[test]
fn only_results_written_since_a_moment_are_this_runs() {
    let home = tempfile::tempdir().unwrap();
    let new = home.path().join("lat_udp/remote/new");
    std::fs::create_dir_all(&new).unwrap();
    let file = new.join("sample.json");
    std::fs::write(&file, "{}").unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    let since = SystemTime::now() - Duration::from_secs(60);
    assert!(!written_since(home.path(), "lat_udp/remote", since));
    assert!(!written_since(home.path(), "lat_udp/udp", since));
    std::fs::write(&file, "{}").unwrap();
    assert!(written_since(home.path(), "lat_udp/remote", since));
}
