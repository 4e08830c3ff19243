//! The neural network the tests evaluate, fetched the way a user gets it: KaTrain's PyPI wheel, which ships
//! KataGo's network `b10c384h6nbttflrs.bin.gz`, downloaded with pip, the file taken out of it and checked
//! against its SHA-256, and kept in the user's cache folder between runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The variable that tells the tests where the network file is.
pub const NETWORK_VAR: &str = "TESUJI_TEST_NETWORK";

/// The wheel, the file inside it, and the file's SHA-256.
const WHEEL: &str = "katrain==1.20.0";
const MEMBER: &str = "katrain/models/b10c384h6nbttflrs.bin.gz";
const SHA256: &str = "0ba27eced5180b3e3d0b898b280c541112989765e789d1eb6cd0d31b2b2c1229";

/// `$XDG_CACHE_HOME/tesuji/networks`, or `~/.cache/tesuji/networks`.
fn cache_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir).join("tesuji/networks"));
    }
    let home = std::env::var_os("HOME").context("neither XDG_CACHE_HOME nor HOME is set")?;
    Ok(PathBuf::from(home).join(".cache/tesuji/networks"))
}

/// Python that checks a file's SHA-256 (argv 1, 2), or with four arguments first takes member argv 4 out
/// of the wheel argv 3 into argv 1.
const PYTHON: &str = r#"
import hashlib, sys, zipfile
path, digest = sys.argv[1], sys.argv[2]
if len(sys.argv) > 3:
    data = zipfile.ZipFile(sys.argv[3]).read(sys.argv[4])
    if hashlib.sha256(data).hexdigest() != digest:
        sys.exit("the network in the wheel is not the one expected (SHA-256 differs)")
    open(path + ".part", "wb").write(data)
    sys.exit(0)
ok = hashlib.sha256(open(path, "rb").read()).hexdigest() == digest
sys.exit(0 if ok else 1)
"#;

/// The network's path, fetching it first when the cache does not hold it whole.
pub fn reference_network() -> Result<PathBuf> {
    let dir = cache_dir()?;
    let file = dir.join("b10c384h6nbttflrs.bin.gz");
    if file.exists() && python(&[file.as_os_str(), SHA256.as_ref()])? {
        return Ok(file);
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let download = dir.join("download");
    let _ = std::fs::remove_dir_all(&download);
    eprintln!("xtask: fetching KataGo's network from PyPI ({WHEEL}, about 106 MB)");
    let status = Command::new("python3")
        .args(["-m", "pip", "download", "--quiet", "--no-deps", "--dest"])
        .arg(&download)
        .arg(WHEEL)
        .status()
        .context("cannot run python3 -m pip")?;
    if !status.success() {
        bail!("`pip download {WHEEL}` failed ({status})");
    }
    let wheel = std::fs::read_dir(&download)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .context("pip downloaded no wheel")?;
    if !python(&[
        file.as_os_str(),
        SHA256.as_ref(),
        wheel.as_os_str(),
        MEMBER.as_ref(),
    ])? {
        bail!("cannot take {MEMBER} out of {}", wheel.display());
    }
    let part = Path::new(&format!("{}.part", file.display())).to_path_buf();
    std::fs::rename(&part, &file).with_context(|| format!("cannot write {}", file.display()))?;
    let _ = std::fs::remove_dir_all(&download);
    Ok(file)
}

fn python(args: &[&std::ffi::OsStr]) -> Result<bool> {
    let status = Command::new("python3")
        .arg("-c")
        .arg(PYTHON)
        .args(args)
        .status()
        .context("cannot run python3")?;
    Ok(status.success())
}
