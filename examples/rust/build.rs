// Links libcuzk: from CUZK_LIB_DIR when set (with an rpath, so tests and examples run from
// the build tree), else from the system's library path (make install).
fn main() {
    println!("cargo:rerun-if-env-changed=CUZK_LIB_DIR");
    if let Ok(dir) = std::env::var("CUZK_LIB_DIR") {
        println!("cargo:rustc-link-search=native={dir}");
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
    println!("cargo:rustc-link-lib=dylib=cuzk");
}
