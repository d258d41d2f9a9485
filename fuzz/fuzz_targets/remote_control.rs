//! The control protocol of `lmbench serve` (`lmbench_support::remote::
//! proto`): a byte stream from an untrusted client, cut into reads, split
//! into lines and parsed as requests (what the server does) and as replies
//! (what the client does with a hostile or broken server); then the
//! credit words of the bandwidth source.
//!
//! Checked beyond "no panic": the line buffer never holds more than
//! `MAX_LINE` bytes and gives the same lines however reads cut the stream;
//! every request that parses formats back to a line that parses to the
//! same request; every reply that parses formats back to a line that
//! parses (ports and byes unchanged); credit never passes `MAX_CREDIT`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lmbench_support::remote::proto::{self, LineBuf, Reply, MAX_CREDIT, MAX_LINE};

/// The lines of `stream` read in pieces of the sizes `cuts` cycles through
/// (0 means 1; empty means one read per `room`), and whether it ended
/// refused (a line too long).
fn lines(stream: &[u8], cuts: &[u8]) -> (Vec<Vec<u8>>, bool) {
    let mut lb = LineBuf::default();
    let mut out = Vec::new();
    let (mut at, mut i) = (0, 0);
    while at < stream.len() {
        let want = cuts
            .get(i % cuts.len().max(1))
            .map_or(usize::MAX, |&c| usize::from(c).max(1));
        i += 1;
        let n = want.min(lb.room()).min(stream.len() - at);
        if n == 0 || lb.push(&stream[at..at + n]).is_err() {
            return (out, true);
        }
        at += n;
        assert!(MAX_LINE - lb.room() <= MAX_LINE);
        loop {
            match lb.next_line() {
                Ok(Some(l)) => out.push(l),
                Ok(None) => break,
                Err(_) => return (out, true),
            }
        }
    }
    (out, false)
}

fuzz_target!(|data: &[u8]| {
    let Some((&ncuts, rest)) = data.split_first() else {
        return;
    };
    let ncuts = usize::from(ncuts % 8).min(rest.len());
    let (cuts, stream) = rest.split_at(ncuts);
    let (whole, whole_refused) = lines(stream, &[]);
    let (pieces, pieces_refused) = lines(stream, cuts);
    assert_eq!(whole, pieces, "lines depend on how reads cut the stream");
    assert_eq!(whole_refused, pieces_refused);
    for line in &whole {
        assert!(line.len() < MAX_LINE + 1 && !line.contains(&b'\n'));
        if let Ok(req) = proto::parse_request(line) {
            let text = proto::format_request(&req);
            let again = proto::parse_request(text.trim_end_matches('\n').as_bytes());
            assert_eq!(again, Ok(req), "request {text:?} does not read back");
        }
        if let Ok(rep) = proto::parse_reply(line) {
            let text = proto::format_reply(&rep);
            let again = proto::parse_reply(text.trim_end_matches('\n').as_bytes())
                .unwrap_or_else(|e| panic!("reply {text:?} does not read back: {e}"));
            if matches!(rep, Reply::Port(_) | Reply::Bye) {
                assert_eq!(again, rep);
            }
        }
    }
    let (mut pending, mut credit) = (Vec::new(), 0u64);
    for chunk in stream.chunks(cuts.first().map_or(8, |&c| usize::from(c).max(1))) {
        if proto::add_credit(&mut pending, chunk, &mut credit).is_err() {
            break;
        }
        assert!(credit <= MAX_CREDIT && pending.len() < 8);
    }
});
