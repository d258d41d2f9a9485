//! The RPC server's dispatch of a TCP byte stream (record marking, RFC
//! 5531 section 11), as `lmbench-peer rpc` runs it per connection:
//! `RecordBuf::serve` over the reads the kernel happens to deliver.
//!
//! The first byte picks how the rest is cut into reads. Checked beyond "no
//! panic": the replies do not depend on how the stream was cut (served in
//! one read or in many, the same bytes come out until the connection is
//! dropped, and it is dropped at the same record); every reply is one
//! complete last fragment of at most 32 bytes; the server answers at most
//! one reply per four bytes received.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lmbench_support::rpc::RecordBuf;

/// Serves `stream` cut into reads of the sizes `cuts` cycles through
/// (0 means 1); the bytes sent back and whether the connection survived.
fn serve(stream: &[u8], cuts: &[u8]) -> (Vec<u8>, bool) {
    let mut rb = RecordBuf::default();
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < stream.len() {
        let n = if cuts.is_empty() {
            stream.len()
        } else {
            usize::from(cuts[i % cuts.len()]).max(1)
        };
        i += 1;
        let end = (at + n).min(stream.len());
        if rb.serve(&stream[at..end], &mut out).is_err() {
            return (out, false);
        }
        at = end;
    }
    (out, true)
}

fuzz_target!(|data: &[u8]| {
    let Some((&ncuts, rest)) = data.split_first() else {
        return;
    };
    let ncuts = usize::from(ncuts % 8).min(rest.len());
    let (cuts, stream) = rest.split_at(ncuts);
    let (whole, whole_ok) = serve(stream, &[]);
    let (pieces, pieces_ok) = serve(stream, cuts);
    assert_eq!(whole_ok, pieces_ok, "dropped in one cut and not the other");
    assert_eq!(
        whole, pieces,
        "the replies depend on how reads cut the stream"
    );
    let mut replies = 0;
    let mut rest = &whole[..];
    while let Some((head, body)) = rest.split_first_chunk::<4>() {
        let head = u32::from_be_bytes(*head);
        assert!(head & 0x8000_0000 != 0, "a reply in fragments");
        let len = (head & 0x7fff_ffff) as usize;
        assert!(len <= 32 && len <= body.len(), "reply of {len} bytes");
        rest = &body[len..];
        replies += 1;
    }
    assert!(rest.is_empty(), "a partial reply");
    assert!(replies * 4 <= stream.len(), "{replies} replies");
});
