//! The services the tests talk to: started before `cargo test`, stopped after it whatever happened (the tests
//! failing, a later service failing to start, a panic, Ctrl-C). [`services`] lists them: a throw-away
//! PostgreSQL 15 cluster and a nats-server, each on a free port of 127.0.0.1 with its files in a temporary
//! directory that stopping it removes. The tests find them by `TESUJI_TEST_POSTGRES` and `TESUJI_TEST_NATS`.

use std::time::Instant;

use anyhow::{Result, anyhow};

/// Environment variables that tell the tests where the services are (`NAME`, `VALUE`).
pub type Env = Vec<(String, String)>;

/// A process the tests talk to.
pub trait Service {
    /// Its name, for messages.
    fn name(&self) -> &str;
    /// Starts it and returns the variables the tests find it by. A start that fails cleans up after itself:
    /// `stop` is called only on services whose start succeeded.
    fn start(&mut self) -> Result<Env>;
    /// Stops it and removes what it left behind (data directories, sockets).
    fn stop(&mut self) -> Result<()>;
}

/// The services `cargo xtask test` starts, in order (stopped in the reverse order).
pub fn services() -> Vec<Box<dyn Service>> {
    #[cfg(unix)]
    {
        vec![
            Box::new(servers::Postgres::default()),
            Box::new(servers::Nats::default()),
        ]
    }
    #[cfg(not(unix))]
    {
        Vec::new()
    }
}

/// Starts the services in order, runs `body` with their variables, and stops the started ones in the reverse
/// order, also when a start fails, `body` fails or panics. The first error wins: a start's, then the body's,
/// then a stop's; any other is printed.
///
/// Meanwhile Ctrl-C does not end this process: it reaches the whole foreground process group, so the tests
/// and the services end on it themselves, and this process then stops what is left, removes the services'
/// directories and fails with "interrupted". (A `Drop` does not run when a signal ends the process.)
pub fn with_services<T>(
    services: Vec<Box<dyn Service>>,
    body: impl FnOnce(&Env) -> Result<T>,
) -> Result<T> {
    let _interrupts = interrupt::catch();
    let mut running = Running(Vec::new());
    let mut env = Env::new();
    for mut service in services {
        let began = Instant::now();
        // On an error `running` is dropped here, which stops the services started so far.
        let vars = match service.start() {
            Ok(vars) => vars,
            Err(_) if interrupt::interrupted() => return Err(anyhow!("interrupted")),
            Err(e) => return Err(e.context(format!("cannot start {}", service.name()))),
        };
        let shown: Vec<String> = vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
        eprintln!(
            "xtask: {} ready in {:.1} s ({})",
            service.name(),
            began.elapsed().as_secs_f64(),
            shown.join(" ")
        );
        env.extend(vars);
        running.0.push(service);
        if interrupt::interrupted() {
            return Err(anyhow!("interrupted"));
        }
    }
    let result = body(&env);
    let stopped = running.stop_all();
    if interrupt::interrupted() {
        if let Err(stop) = stopped {
            eprintln!("xtask: {stop:#}");
        }
        return Err(anyhow!("interrupted"));
    }
    match (result, stopped) {
        (Ok(value), Ok(())) => Ok(value),
        (Ok(_), Err(e)) => Err(e),
        (Err(e), stopped) => {
            if let Err(stop) = stopped {
                eprintln!("xtask: {stop:#}");
            }
            Err(e)
        }
    }
}

/// The services started so far; dropping it stops them.
struct Running(Vec<Box<dyn Service>>);

impl Running {
    /// Stops every service, the last started first; returns the first error and prints the others.
    fn stop_all(&mut self) -> Result<()> {
        let mut first = None;
        while let Some(mut service) = self.0.pop() {
            let began = Instant::now();
            match service.stop() {
                Ok(()) => eprintln!(
                    "xtask: {} stopped in {:.1} s",
                    service.name(),
                    began.elapsed().as_secs_f64()
                ),
                Err(e) => {
                    let e = e.context(format!("cannot stop {}", service.name()));
                    if first.is_none() {
                        first = Some(e);
                    } else {
                        eprintln!("xtask: {e:#}");
                    }
                }
            }
        }
        first.map_or(Ok(()), Err)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Err(e) = self.stop_all() {
            eprintln!("xtask: {e:#}");
        }
    }
}

/// Ctrl-C while the services run: noted, instead of ending this process.
#[cfg(unix)]
mod interrupt {
    use std::ffi::c_int;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Mutex, PoisonError};

    const SIGINT: c_int = 2;
    const SIG_IGN: usize = 1;

    unsafe extern "C" {
        /// POSIX; glibc's keeps the handler installed and restarts interrupted calls.
        fn signal(signum: c_int, handler: usize) -> usize;
    }

    static INTERRUPTED: AtomicBool = AtomicBool::new(false);
    /// How many [`Catching`]s there are, and the handler the first one replaced.
    static CATCHING: Mutex<(usize, usize)> = Mutex::new((0, 0));

    extern "C" fn note(_: c_int) {
        INTERRUPTED.store(true, Ordering::SeqCst);
    }

    /// While one lives, SIGINT is noted rather than fatal; the last one dropped restores the old handler.
    /// An ignored SIGINT (a background job's) stays ignored, and so is never noted.
    pub struct Catching;

    pub fn catch() -> Catching {
        let mut catching = CATCHING.lock().unwrap_or_else(PoisonError::into_inner);
        if catching.0 == 0 {
            INTERRUPTED.store(false, Ordering::SeqCst);
            let handler = note as extern "C" fn(c_int);
            // SAFETY: `note` only stores to an atomic, which is async-signal-safe.
            let old = unsafe { signal(SIGINT, handler as usize) };
            if old == SIG_IGN {
                // SAFETY: restores the disposition we found.
                unsafe { signal(SIGINT, SIG_IGN) };
            }
            catching.1 = old;
        }
        catching.0 += 1;
        Catching
    }

    impl Drop for Catching {
        fn drop(&mut self) {
            let mut catching = CATCHING.lock().unwrap_or_else(PoisonError::into_inner);
            catching.0 -= 1;
            if catching.0 == 0 && catching.1 != usize::MAX {
                // SAFETY: the handler `signal` returned earlier (SIG_DFL, SIG_IGN or a live handler).
                unsafe { signal(SIGINT, catching.1) };
            }
        }
    }

    pub fn interrupted() -> bool {
        INTERRUPTED.load(Ordering::SeqCst)
    }
}

#[cfg(not(unix))]
mod interrupt {
    pub struct Catching;

    pub fn catch() -> Catching {
        Catching
    }

    pub fn interrupted() -> bool {
        false
    }
}

/// The real services: server processes of ours, each with a temporary directory.
#[cfg(unix)]
mod servers {
    use std::ffi::c_int;
    use std::fs::File;
    use std::io::{self, BufRead, BufReader};
    use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
    use std::os::unix::fs::DirBuilderExt;
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, ExitStatus, Stdio};
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::thread::sleep;
    use std::time::{Duration, Instant};

    use anyhow::{Context, Result, bail};

    use super::{Env, Service};

    /// Where Debian's `postgresql` package puts PostgreSQL 15's programs (not on the `PATH`).
    const POSTGRES_BIN: &str = "/usr/lib/postgresql/15/bin";
    /// The cluster's superuser, who connects without a password (`--auth=trust`).
    const POSTGRES_USER: &str = "tesuji";

    const SIGINT: c_int = 2;
    const SIGTERM: c_int = 15;

    unsafe extern "C" {
        // POSIX: no memory is involved; a stale pid is at worst an error.
        safe fn kill(pid: i32, signal: c_int) -> c_int;
    }

    /// A throw-away PostgreSQL 15 cluster: `initdb` in a temporary directory, then `postgres` on a free port
    /// of 127.0.0.1 (and a socket in that directory), without fsync.
    #[derive(Default)]
    pub struct Postgres {
        server: Option<Server>,
    }

    impl Service for Postgres {
        fn name(&self) -> &str {
            "PostgreSQL 15"
        }

        fn start(&mut self) -> Result<Env> {
            let bin = Path::new(POSTGRES_BIN);
            // SIGINT is PostgreSQL's fast shutdown: it ends the sessions rather than waiting for them.
            let mut server = Server::new("postgres", SIGINT, Duration::from_secs(20))?;
            let dir = server.dir.clone();
            let data = dir.join("data");
            // initdb refuses to run as root, and the server's files must be its user's.
            let user = if crate::is_root() {
                let user = unprivileged_user()?;
                std::os::unix::fs::chown(&dir, Some(user.uid), Some(user.gid)).with_context(
                    || format!("cannot give {} to the user {}", dir.display(), user.name),
                )?;
                Some(user)
            } else {
                None
            };

            let mut initdb = Command::new(bin.join("initdb"));
            initdb
                .arg("-D")
                .arg(&data)
                .args(["-U", POSTGRES_USER, "--auth=trust", "-E", "UTF8"])
                .args(["--locale=C", "--no-sync", "--no-instructions"])
                .current_dir(&dir)
                .stdin(Stdio::null());
            as_user(&mut initdb, user.as_ref());
            let out = initdb
                .output()
                .with_context(|| format!("cannot run {}/initdb", bin.display()))?;
            if !out.status.success() {
                bail!(
                    "initdb failed ({}):\n{}{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }

            let port = server.start_on_free_port(
                |port| {
                    let mut postgres = Command::new(bin.join("postgres"));
                    postgres
                        .arg("-D")
                        .arg(&data)
                        .args(["-p", &port.to_string()])
                        .arg("-k")
                        .arg(&dir)
                        .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"])
                        .args(["-c", "max_connections=300"]);
                    as_user(&mut postgres, user.as_ref());
                    postgres
                },
                |port| postgres_ready(bin, port),
                Duration::from_secs(30),
            )?;
            self.server = Some(server);
            Ok(vec![(
                "TESUJI_TEST_POSTGRES".into(),
                format!("postgres://{POSTGRES_USER}@127.0.0.1:{port}/postgres"),
            )])
        }

        fn stop(&mut self) -> Result<()> {
            self.server
                .take()
                .map_or(Ok(()), |mut server| server.stop())
        }
    }

    /// Whether the server on `port` accepts connections: the port does, then `pg_isready` says so (the port
    /// opens before the server has finished starting).
    fn postgres_ready(bin: &Path, port: u16) -> Result<bool> {
        if TcpStream::connect_timeout(&local(port), Duration::from_secs(1)).is_err() {
            return Ok(false);
        }
        let status = Command::new(bin.join("pg_isready"))
            .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
            .args(["-U", POSTGRES_USER, "-d", "postgres", "-t", "5"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .with_context(|| format!("cannot run {}/pg_isready", bin.display()))?;
        Ok(status.success())
    }

    /// A NATS server (core NATS, no JetStream) on a free port of 127.0.0.1.
    #[derive(Default)]
    pub struct Nats {
        server: Option<Server>,
    }

    impl Service for Nats {
        fn name(&self) -> &str {
            "nats-server"
        }

        fn start(&mut self) -> Result<Env> {
            let mut server = Server::new("nats-server", SIGTERM, Duration::from_secs(10))?;
            let port = server.start_on_free_port(
                |port| {
                    let mut nats = Command::new("nats-server");
                    nats.args(["-a", "127.0.0.1", "-p", &port.to_string()]);
                    nats
                },
                nats_ready,
                Duration::from_secs(20),
            )?;
            self.server = Some(server);
            Ok(vec![(
                "TESUJI_TEST_NATS".into(),
                format!("nats://127.0.0.1:{port}"),
            )])
        }

        fn stop(&mut self) -> Result<()> {
            self.server
                .take()
                .map_or(Ok(()), |mut server| server.stop())
        }
    }

    /// Whether a NATS server on `port` greets a connection, as the protocol's servers do: `INFO {...}`.
    fn nats_ready(port: u16) -> Result<bool> {
        let Ok(stream) = TcpStream::connect_timeout(&local(port), Duration::from_secs(1)) else {
            return Ok(false);
        };
        stream.set_read_timeout(Some(Duration::from_secs(2)))?;
        let mut line = String::new();
        Ok(BufReader::new(stream).read_line(&mut line).is_ok() && line.starts_with("INFO {"))
    }

    fn local(port: u16) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, port))
    }

    /// A port of 127.0.0.1 that nothing listens on (as of now: the server asked to use it may find it taken).
    fn free_port() -> Result<u16> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .context("cannot find a free port on 127.0.0.1")?;
        Ok(listener.local_addr()?.port())
    }

    /// A server process and its temporary directory, which holds its log. Stopping or dropping it ends the
    /// process and removes the directory.
    struct Server {
        /// The program's name, for messages and the log's name.
        name: &'static str,
        dir: PathBuf,
        child: Option<Child>,
        /// The signal that asks it to stop, and how long it gets before SIGKILL.
        stop_signal: c_int,
        grace: Duration,
    }

    impl Server {
        /// Makes the directory; [`Server::start_on_free_port`] starts the process.
        fn new(name: &'static str, stop_signal: c_int, grace: Duration) -> Result<Server> {
            Ok(Server {
                name,
                dir: temp_dir(name)?,
                child: None,
                stop_signal,
                grace,
            })
        }

        fn log(&self) -> PathBuf {
            self.dir.join(format!("{}.log", self.name))
        }

        /// Runs `command(port)` on a free port until `ready(port)`, or fails when it exits first or takes
        /// longer than `timeout`. The free port can be taken before the server binds it: then it tries
        /// another, three times in all.
        fn start_on_free_port(
            &mut self,
            command: impl Fn(u16) -> Command,
            ready: impl Fn(u16) -> Result<bool>,
            timeout: Duration,
        ) -> Result<u16> {
            for _ in 0..3 {
                let port = free_port()?;
                self.spawn(command(port))?;
                if self.wait_until_ready(|| ready(port), timeout)? {
                    return Ok(port);
                }
            }
            bail!(
                "{} found its free port taken three times; the end of its log:\n{}",
                self.name,
                self.log_tail()
            )
        }

        /// Starts the process, its output going to the log (replacing an earlier attempt's). It is asked to
        /// stop when this thread ends first (on Linux), so that a killed xtask leaves no server behind.
        fn spawn(&mut self, mut command: Command) -> Result<()> {
            let log = File::create(self.log())
                .with_context(|| format!("cannot create {}", self.log().display()))?;
            command
                .current_dir(&self.dir)
                .stdin(Stdio::null())
                .stdout(log.try_clone()?)
                .stderr(log);
            stop_with_parent(&mut command, self.stop_signal);
            let child = command.spawn().with_context(|| {
                format!("cannot run {}", command.get_program().to_string_lossy())
            })?;
            self.child = Some(child);
            Ok(())
        }

        /// Waits until `ready()`: true then, false when the process exited because its port was taken.
        fn wait_until_ready(
            &mut self,
            mut ready: impl FnMut() -> Result<bool>,
            timeout: Duration,
        ) -> Result<bool> {
            let deadline = Instant::now() + timeout;
            loop {
                if let Some(status) = self.exited()? {
                    self.child = None;
                    let log = std::fs::read_to_string(self.log()).unwrap_or_default();
                    if log.to_lowercase().contains("address already in use") {
                        return Ok(false);
                    }
                    bail!(
                        "{} exited ({status}) before accepting connections; the end of its log:\n{}",
                        self.name,
                        self.log_tail()
                    );
                }
                if ready()? {
                    return Ok(true);
                }
                if Instant::now() >= deadline {
                    bail!(
                        "{} did not accept connections within {} s; the end of its log:\n{}",
                        self.name,
                        timeout.as_secs(),
                        self.log_tail()
                    );
                }
                sleep(Duration::from_millis(25));
            }
        }

        /// The process's status once it has exited.
        fn exited(&mut self) -> Result<Option<ExitStatus>> {
            match &mut self.child {
                None => Ok(None),
                Some(child) => child
                    .try_wait()
                    .with_context(|| format!("cannot wait for {}", self.name)),
            }
        }

        /// The log's last lines, indented.
        fn log_tail(&self) -> String {
            let log = match std::fs::read_to_string(self.log()) {
                Ok(log) => log,
                Err(e) => return format!("    (cannot read {}: {e})", self.log().display()),
            };
            let lines: Vec<&str> = log.lines().collect();
            let tail = &lines[lines.len().saturating_sub(20)..];
            if tail.is_empty() {
                return "    (empty)".into();
            }
            tail.iter()
                .map(|line| format!("    {line}"))
                .collect::<Vec<_>>()
                .join("\n")
        }

        /// Asks the process to stop, kills it when it takes longer than its grace, and removes the directory.
        /// An error when it had failed before (a crash), or had to be killed; the directory goes all the same.
        fn stop(&mut self) -> Result<()> {
            let stopped = self.end();
            let removed = match std::fs::remove_dir_all(&self.dir) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    Err(e).with_context(|| format!("cannot remove {}", self.dir.display()))
                }
                _ => Ok(()),
            };
            stopped.and(removed)
        }

        fn end(&mut self) -> Result<()> {
            if let Some(status) = self.exited()? {
                let tail = self.log_tail();
                self.child = None;
                if status.success() {
                    return Ok(());
                }
                bail!(
                    "{} had already exited ({status}); the end of its log:\n{tail}",
                    self.name
                );
            }
            let Some(mut child) = self.child.take() else {
                return Ok(());
            };
            let pid = i32::try_from(child.id()).context("a process id beyond i32")?;
            kill(pid, self.stop_signal);
            let deadline = Instant::now() + self.grace;
            while Instant::now() < deadline {
                if child.try_wait()?.is_some() {
                    return Ok(());
                }
                sleep(Duration::from_millis(10));
            }
            child.kill()?;
            child.wait()?;
            bail!(
                "{} was still running {} s after being asked to stop, so it was killed; the end of its log:\n{}",
                self.name,
                self.grace.as_secs_f64(),
                self.log_tail()
            )
        }
    }

    impl Drop for Server {
        /// The way out of a failed start or a panic: the errors do not matter any more.
        fn drop(&mut self) {
            let _ = self.stop();
        }
    }

    /// On Linux, the process gets `signal` when the thread that started it ends: the server stops when
    /// xtask is killed before it could stop the server itself.
    #[cfg(target_os = "linux")]
    fn stop_with_parent(command: &mut Command, signal: c_int) {
        unsafe extern "C" {
            fn prctl(option: c_int, ...) -> c_int;
        }
        const PR_SET_PDEATHSIG: c_int = 1;
        // SAFETY: runs in the child between fork and exec, where prctl (a system call) is allowed; it runs
        // after the change of user, which would otherwise clear the setting.
        unsafe {
            command.pre_exec(move || {
                if prctl(PR_SET_PDEATHSIG, signal as std::ffi::c_ulong) == -1 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn stop_with_parent(_: &mut Command, _: c_int) {}

    /// A new directory `tesuji-xtask-NAME-PID-N` under the system's temporary one, for this process only.
    fn temp_dir(name: &str) -> Result<PathBuf> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let base = std::env::temp_dir();
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!("tesuji-xtask-{name}-{}-{n}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(dir),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot create {}", dir.display()));
                }
            }
        }
    }

    /// A user to run PostgreSQL as when xtask runs as root.
    #[derive(Debug, PartialEq)]
    struct User {
        name: String,
        uid: u32,
        gid: u32,
    }

    /// `postgres` (the package's user), else `nobody`.
    fn unprivileged_user() -> Result<User> {
        let passwd = std::fs::read_to_string("/etc/passwd").context("cannot read /etc/passwd")?;
        ["postgres", "nobody"]
            .into_iter()
            .find_map(|name| passwd_entry(&passwd, name))
            .context(
                "initdb refuses to run as root, and /etc/passwd has no postgres or nobody user to run it as",
            )
    }

    /// The user `name` of an /etc/passwd (`name:password:uid:gid:...`).
    fn passwd_entry(passwd: &str, name: &str) -> Option<User> {
        passwd.lines().find_map(|line| {
            let mut fields = line.split(':');
            if fields.next()? != name {
                return None;
            }
            let uid = fields.nth(1)?.parse().ok()?;
            let gid = fields.next()?.parse().ok()?;
            Some(User {
                name: name.into(),
                uid,
                gid,
            })
        })
    }

    fn as_user(command: &mut Command, user: Option<&User>) {
        if let Some(user) = user {
            // Setting the user also drops root's supplementary groups.
            command.uid(user.uid).gid(user.gid);
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::io::{Read, Write};

        /// The port of `url`, which must be `prefix PORT suffix`.
        fn port_of(url: &str, prefix: &str, suffix: &str) -> u16 {
            url.strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(suffix))
                .and_then(|port| port.parse().ok())
                .unwrap_or_else(|| panic!("{url:?} is not {prefix}PORT{suffix}"))
        }

        fn assert_gone(port: u16, dir: &Path) {
            assert!(
                TcpStream::connect(local(port)).is_err(),
                "port {port} still accepts connections"
            );
            assert!(!dir.exists(), "{} is still there", dir.display());
        }

        #[test]
        fn postgres_answers_queries_on_its_port_and_leaves_nothing_behind() {
            let mut postgres = Postgres::default();
            let env = postgres.start().expect("cannot start PostgreSQL 15");
            let [(name, url)] = &env[..] else {
                panic!("one variable expected: {env:?}");
            };
            assert_eq!(name, "TESUJI_TEST_POSTGRES");
            let port = port_of(url, "postgres://tesuji@127.0.0.1:", "/postgres");
            let dir = postgres.server.as_ref().unwrap().dir.clone();
            assert!(dir.join("data/PG_VERSION").is_file());
            TcpStream::connect(local(port)).expect("PostgreSQL's port is closed");

            let psql = Path::new(POSTGRES_BIN).join("psql");
            let out = Command::new(&psql)
                .arg(url)
                .args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c"])
                .arg(
                    "select 1 + 1, current_user, current_setting('fsync'), \
                     current_setting('max_connections'), current_setting('server_version_num')::int / 10000",
                )
                .output()
                .unwrap_or_else(|e| panic!("cannot run {}: {e}", psql.display()));
            assert!(
                out.status.success(),
                "psql failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(
                String::from_utf8_lossy(&out.stdout).trim(),
                "2|tesuji|off|300|15"
            );

            postgres.stop().expect("cannot stop PostgreSQL");
            assert_gone(port, &dir);
            // Stopping twice is no error.
            postgres.stop().unwrap();
        }

        #[test]
        fn nats_greets_and_answers_on_its_port_and_leaves_nothing_behind() {
            let mut nats = Nats::default();
            let env = nats.start().expect("cannot start nats-server");
            let [(name, url)] = &env[..] else {
                panic!("one variable expected: {env:?}");
            };
            assert_eq!(name, "TESUJI_TEST_NATS");
            let port = port_of(url, "nats://127.0.0.1:", "");
            let dir = nats.server.as_ref().unwrap().dir.clone();

            let stream = TcpStream::connect(local(port)).expect("nats-server's port is closed");
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut info = String::new();
            reader.read_line(&mut info).unwrap();
            assert!(info.starts_with("INFO {"), "{info:?}");
            assert!(info.contains(&format!("\"port\":{port}")), "{info:?}");
            assert!(!info.contains("jetstream\":true"), "{info:?}");
            (&stream)
                .write_all(b"CONNECT {\"verbose\":false}\r\nPING\r\n")
                .unwrap();
            let mut pong = String::new();
            reader.read_line(&mut pong).unwrap();
            assert_eq!(pong, "PONG\r\n");

            nats.stop().expect("cannot stop nats-server");
            // The server closed our connection on its way out.
            let mut rest = Vec::new();
            let _ = reader.read_to_end(&mut rest);
            assert_gone(port, &dir);
        }

        #[test]
        fn a_server_that_ignores_its_stop_signal_is_killed_after_its_grace() {
            let mut server = Server::new("stubborn", SIGTERM, Duration::from_millis(300)).unwrap();
            let mut sh = Command::new("sh");
            sh.args(["-c", "trap '' TERM; echo holding on; exec sleep 60"]);
            server.spawn(sh).unwrap();
            // Until the trap is set, SIGTERM would simply end it.
            let log = server.log();
            server
                .wait_until_ready(
                    || Ok(std::fs::read_to_string(&log).is_ok_and(|l| !l.is_empty())),
                    Duration::from_secs(10),
                )
                .unwrap();
            let pid = server.child.as_ref().unwrap().id();
            let dir = server.dir.clone();
            let began = Instant::now();
            let e = format!("{:#}", server.stop().unwrap_err());
            assert!(began.elapsed() >= Duration::from_millis(300));
            assert!(
                e.contains("was still running 0.3 s after") && e.contains("holding on"),
                "{e}"
            );
            assert_eq!(kill(pid as i32, 0), -1, "the process is still there");
            assert!(!dir.exists());
        }

        #[test]
        fn a_server_that_exits_early_fails_its_start_with_its_log() {
            let mut server = Server::new("quitter", SIGTERM, Duration::from_secs(1)).unwrap();
            let e = server
                .start_on_free_port(
                    |port| {
                        let mut sh = Command::new("sh");
                        sh.args(["-c", &format!("echo no config for port {port}; exit 3")]);
                        sh
                    },
                    |_| Ok(false),
                    Duration::from_secs(10),
                )
                .unwrap_err();
            let e = format!("{e:#}");
            assert!(
                e.starts_with("quitter exited (exit status: 3) before accepting connections")
                    && e.contains("    no config for port "),
                "{e}"
            );
            let dir = server.dir.clone();
            drop(server);
            assert!(!dir.exists());
        }

        #[test]
        fn a_taken_port_is_retried_on_another() {
            let mut server = Server::new("unlucky", SIGTERM, Duration::from_secs(1)).unwrap();
            let tries = std::cell::Cell::new(0);
            let e = server
                .start_on_free_port(
                    |_| {
                        tries.set(tries.get() + 1);
                        let mut sh = Command::new("sh");
                        sh.args(["-c", "echo 'bind: Address already in use'; exit 1"]);
                        sh
                    },
                    |_| Ok(false),
                    Duration::from_secs(10),
                )
                .unwrap_err();
            assert_eq!(tries.get(), 3);
            assert!(
                format!("{e:#}").contains("free port taken three times"),
                "{e:#}"
            );
        }

        #[test]
        fn a_user_is_found_in_etc_passwd() {
            let passwd = "root:x:0:0:root:/root:/bin/bash\n\
                          nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n\
                          postgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n";
            assert_eq!(
                passwd_entry(passwd, "postgres"),
                Some(User {
                    name: "postgres".into(),
                    uid: 101,
                    gid: 104
                })
            );
            assert_eq!(passwd_entry(passwd, "nobody").map(|u| u.uid), Some(65534));
            assert_eq!(passwd_entry(passwd, "post"), None);
            assert_eq!(passwd_entry("postgres:x:oops:1::", "postgres"), None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::bail;
    use std::cell::RefCell;
    use std::rc::Rc;

    type Log = Rc<RefCell<Vec<String>>>;

    /// A service that records its starts and stops, and fails where told.
    struct Fake {
        name: &'static str,
        log: Log,
        fail_start: bool,
        fail_stop: bool,
    }

    impl Service for Fake {
        fn name(&self) -> &str {
            self.name
        }

        fn start(&mut self) -> Result<Env> {
            self.log.borrow_mut().push(format!("start {}", self.name));
            if self.fail_start {
                bail!("no port");
            }
            Ok(vec![(
                format!("{}_URL", self.name.to_uppercase()),
                format!("{}://", self.name),
            )])
        }

        fn stop(&mut self) -> Result<()> {
            self.log.borrow_mut().push(format!("stop {}", self.name));
            if self.fail_stop {
                bail!("still running");
            }
            Ok(())
        }
    }

    fn fakes(log: &Log, spec: &[(&'static str, bool, bool)]) -> Vec<Box<dyn Service>> {
        spec.iter()
            .map(|&(name, fail_start, fail_stop)| {
                Box::new(Fake {
                    name,
                    log: log.clone(),
                    fail_start,
                    fail_stop,
                }) as Box<dyn Service>
            })
            .collect()
    }

    fn entries(log: &Log) -> Vec<String> {
        log.borrow().clone()
    }

    #[test]
    fn services_start_in_order_around_the_body_and_stop_in_reverse() {
        let log = Log::default();
        let services = fakes(&log, &[("pg", false, false), ("nats", false, false)]);
        let got = with_services(services, |env| {
            log.borrow_mut().push("tests".into());
            Ok(env.clone())
        })
        .unwrap();
        assert_eq!(
            got,
            [
                ("PG_URL".to_string(), "pg://".to_string()),
                ("NATS_URL".to_string(), "nats://".to_string())
            ]
        );
        assert_eq!(
            entries(&log),
            ["start pg", "start nats", "tests", "stop nats", "stop pg"]
        );
    }

    #[test]
    fn no_services_just_runs_the_body() {
        assert_eq!(with_services(Vec::new(), |env| Ok(env.len())).unwrap(), 0);
    }

    #[test]
    fn failing_tests_still_stop_the_services() {
        let log = Log::default();
        let services = fakes(&log, &[("pg", false, false), ("nats", false, false)]);
        let e = with_services(services, |_| -> Result<()> { bail!("tests failed") }).unwrap_err();
        assert_eq!(e.to_string(), "tests failed");
        assert_eq!(
            entries(&log),
            ["start pg", "start nats", "stop nats", "stop pg"]
        );
    }

    #[test]
    fn a_failed_start_stops_the_started_ones_and_runs_no_tests() {
        let log = Log::default();
        let services = fakes(
            &log,
            &[
                ("pg", false, false),
                ("nats", true, false),
                ("third", false, false),
            ],
        );
        let e = with_services(services, |_| {
            log.borrow_mut().push("tests".into());
            Ok(())
        })
        .unwrap_err();
        assert_eq!(format!("{e:#}"), "cannot start nats: no port");
        assert_eq!(entries(&log), ["start pg", "start nats", "stop pg"]);
    }

    #[test]
    fn a_panic_in_the_body_still_stops_the_services() {
        let log = Log::default();
        let services = fakes(&log, &[("pg", false, false)]);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            with_services(services, |_| -> Result<()> { panic!("boom") })
        }));
        assert!(outcome.is_err());
        assert_eq!(entries(&log), ["start pg", "stop pg"]);
    }

    #[test]
    fn a_failed_stop_is_an_error_after_passing_tests_and_every_service_is_still_stopped() {
        let log = Log::default();
        let services = fakes(&log, &[("pg", false, false), ("nats", false, true)]);
        let e = with_services(services, |_| Ok(())).unwrap_err();
        assert_eq!(format!("{e:#}"), "cannot stop nats: still running");
        assert_eq!(
            entries(&log),
            ["start pg", "start nats", "stop nats", "stop pg"]
        );

        // After failing tests, the tests' error is the one returned.
        let log = Log::default();
        let services = fakes(&log, &[("nats", false, true)]);
        let e = with_services(services, |_| -> Result<()> { bail!("tests failed") }).unwrap_err();
        assert_eq!(e.to_string(), "tests failed");
    }
}
