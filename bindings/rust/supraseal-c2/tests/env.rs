// The process engine's options from the environment (its own test binary: the engine is made
// once per process, by the first SRS::try_new). A bad value fails that call with a message
// naming the variable and leaves no engine; the next call, with the value fixed, makes it,
// configured as the variables say, and says so once on stderr (test_supraseal_rust.sh
// checks that line).
#[path = "../../cuzk/tests/common/mod.rs"]
mod common;

use cuzk::sys;
use supraseal_c2::{engine_stats, SRS};

fn refused(var: &str, value: &str, want: &str) {
    std::env::set_var(var, value);
    let err = SRS::try_new(common::fixture().params(), false).expect_err("a bad environment variable");
    assert_eq!(err.code, sys::CUZK_EINVAL);
    let text = String::from(err);
    assert!(text.contains(want), "'{text}' lacks '{want}'");
    assert!(engine_stats().is_none(), "no engine after a refused configuration");
}

#[test]
fn environment_configures_the_engine_once() {
    assert!(engine_stats().is_none(), "no engine before the first SRS");
    refused("CUZK_BACKEND", "gpu", "CUZK_BACKEND is 'gpu'; it takes auto, cpu or cuda");
    std::env::set_var("CUZK_BACKEND", "cpu");
    refused("CUZK_WORKERS_PER_DEVICE", "two", "CUZK_WORKERS_PER_DEVICE is 'two', not an integer");
    refused("CUZK_WORKERS_PER_DEVICE", "65", "CUZK_WORKERS_PER_DEVICE=65: ");
    std::env::set_var("CUZK_WORKERS_PER_DEVICE", "3");
    std::env::set_var("CUZK_QUEUE_CAPACITY", "0x40");
    std::env::set_var("CUZK_CPU_THREADS", "1");
    let srs = SRS::try_new(common::fixture().params(), false).expect("a good environment");
    let st = engine_stats().expect("the engine exists now");
    assert_eq!((st.backend, st.devices, st.workers, st.queue_capacity), (sys::CUZK_BACKEND_CPU, 0, 3, 64));
    // Read once: a later change has no effect on the engine that exists.
    std::env::set_var("CUZK_WORKERS_PER_DEVICE", "nonsense");
    let again = SRS::try_new(common::fixture().params(), false).expect("the engine is made already");
    assert_eq!(engine_stats().unwrap().workers, 3);
    drop((srs, again));
}
