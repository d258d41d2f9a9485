//! One ONC RPC message, as a UDP datagram or a TCP record brings it, to
//! both sides of `lmbench_support::rpc`: the server's dispatch
//! (`serve_call`) and the client's reply parser (`parse_reply`).
//!
//! Checked beyond "no panic": a reply, when the server gives one, is a
//! reply to this call (its xid), small, and one the client parses: success
//! for the NULL and char procedures of our program, an error otherwise.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lmbench_support::rpc::{self, parse_reply, serve_call};

fuzz_target!(|data: &[u8]| {
    let _ = parse_reply(data);
    let Some(reply) = serve_call(data) else {
        return;
    };
    assert!(reply.len() <= 32, "reply of {} bytes", reply.len());
    assert_eq!(reply[..4], data[..4], "the reply carries the call's xid");
    let word = |i: usize| u32::from_be_bytes(data[i * 4..i * 4 + 4].try_into().unwrap());
    let ok = parse_reply(&reply);
    // Our program, version and a known procedure with AUTH_NONE-sized
    // credentials: a successful reply the client accepts.
    let ours = data.len() >= 40
        && word(2) == 2
        && word(3) == rpc::PROG
        && word(4) == rpc::VERS
        && word(7) == 0
        && word(9) == 0;
    match (ours, word_or(data, 5)) {
        (true, Some(rpc::PROC_NULL)) if data.len() == 40 => {
            assert_eq!(ok.unwrap(), (word(0), &[][..]));
        }
        (true, Some(rpc::PROC_CHAR)) if data.len() == 44 => {
            let (xid, result) = ok.unwrap();
            assert_eq!(xid, word(0));
            assert_eq!(result, rpc::xdr_char(data[43]));
        }
        _ => {}
    }
});

fn word_or(data: &[u8], i: usize) -> Option<u32> {
    data.get(i * 4..i * 4 + 4)
        .map(|w| u32::from_be_bytes(w.try_into().unwrap()))
}
