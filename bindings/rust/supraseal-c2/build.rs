// cuzk-sys found libcuzk (CUZK_LIB_DIR or pkg-config) and passes its directories as
// DEP_CUZK_LIB_DIRS. Link arguments do not travel from one crate to another, so this crate
// adds an rpath for its own tests: they then run against the library they were linked with,
// also from a prefix the dynamic loader does not search. A host's binary (bellperson's
// caller, filecoin-ffi) decides its loader path itself (docs/filecoin.md).
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_CUZK_LIB_DIRS");
    if let Ok(dirs) = std::env::var("DEP_CUZK_LIB_DIRS") {
        for d in dirs.split(':').filter(|d| !d.is_empty()) {
            println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{d}");
        }
    }
}
