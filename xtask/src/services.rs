//! The services the tests talk to: started before `cargo test`, stopped after it whatever happened (the tests
//! failing, a later service failing to start, a panic). There are none yet; a throw-away PostgreSQL and a
//! nats-server will be added to [`services`], their packages to the requirements.

use anyhow::{Context, Result};

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
    Vec::new()
}

/// Starts the services in order, runs `body` with their variables, and stops the started ones in the reverse
/// order, also when a start fails, `body` fails or panics. The first error wins: a start's, then the body's,
/// then a stop's; any other is printed.
pub fn with_services<T>(
    services: Vec<Box<dyn Service>>,
    body: impl FnOnce(&Env) -> Result<T>,
) -> Result<T> {
    let mut running = Running(Vec::new());
    let mut env = Env::new();
    for mut service in services {
        // On an error `running` is dropped here, which stops the services started so far.
        let vars = service
            .start()
            .with_context(|| format!("cannot start {}", service.name()))?;
        env.extend(vars);
        running.0.push(service);
    }
    let result = body(&env);
    let stopped = running.stop_all();
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
            if let Err(e) = service.stop() {
                let e = e.context(format!("cannot stop {}", service.name()));
                if first.is_none() {
                    first = Some(e);
                } else {
                    eprintln!("xtask: {e:#}");
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
