// Finds libcuzk for the linker, in this order:
//   1. CUZK_LIB_DIR=/dir/with/libcuzk.so (a build tree, or any prefix without a .pc file);
//   2. `pkg-config --libs cuzk` (what `make install` writes: PREFIX/lib/pkgconfig/cuzk.pc;
//      set PKG_CONFIG_PATH for a prefix pkg-config does not search by default);
//   3. neither: a plain -lcuzk (the library in the linker's default path) and a warning.
// It runs the pkg-config program itself (no third-party crate) and passes the directories on
// to dependents as DEP_CUZK_LIB_DIRS (':'-separated; the cuzk crate turns them into an rpath
// for its own tests and examples). Linking is dynamic: see docs/rust.md for why.
use std::env;
use std::process::Command;

fn main() {
    for v in ["CUZK_LIB_DIR", "PKG_CONFIG", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR"] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    let dirs = match env::var("CUZK_LIB_DIR") {
        Ok(dir) if !dir.is_empty() => {
            println!("cargo:rustc-link-lib=dylib=cuzk");
            vec![dir]
        }
        _ => match pkg_config() {
            Ok(dirs) => dirs,
            Err(why) => {
                println!("cargo:warning=libcuzk not found through pkg-config ({why}); linking -lcuzk from the default library path (set CUZK_LIB_DIR or PKG_CONFIG_PATH)");
                println!("cargo:rustc-link-lib=dylib=cuzk");
                Vec::new()
            }
        },
    };
    for d in &dirs {
        println!("cargo:rustc-link-search=native={d}");
    }
    println!("cargo:lib_dirs={}", dirs.join(":"));
}

/// The minor version src/lib.rs declares (its CUZK_VERSION_MINOR): its newest symbols
/// (cuzk_cs_load, cuzk_submit_witness, node CUZK_0.4) are in no older library.
const NEEDS_MINOR: u32 = 4;

/// Runs `pkg-config --libs cuzk` and turns its flags into link instructions; returns the -L
/// directories. The version must be 0.x with x >= NEEDS_MINOR: later minors only add (the
/// safe crate checks the loaded library again at run time, which is what counts).
fn pkg_config() -> Result<Vec<String>, String> {
    let prog = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into());
    let run = |args: &[&str]| -> Result<String, String> {
        let out = Command::new(&prog).args(args).output().map_err(|e| format!("cannot run {prog}: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let version = run(&["--modversion", "cuzk"])?;
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if major != 0 || minor < NEEDS_MINOR {
        return Err(format!("cuzk.pc says version {version}; this crate needs 0.{NEEDS_MINOR} or a later 0.x"));
    }
    let mut dirs = Vec::new();
    let mut linked = false;
    for flag in run(&["--libs", "cuzk"])?.split_whitespace() {
        if let Some(d) = flag.strip_prefix("-L") {
            dirs.push(d.to_string());
        } else if let Some(l) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={l}");
            linked |= l == "cuzk";
        } else if let Some(d) = flag.strip_prefix("-Wl,-rpath,") {
            // A build-tree .pc may carry its rpath; keep the directory for dependents.
            dirs.push(d.to_string());
        }
    }
    if !linked {
        return Err("cuzk.pc's Libs do not name -lcuzk".into());
    }
    dirs.dedup();
    Ok(dirs)
}
