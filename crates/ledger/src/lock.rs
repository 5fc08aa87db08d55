//! The home lock: one run per `$AMEM_HOME` at a time.
//!
//! SQLite's own locking keeps the ledger file consistent, but two audit runs
//! on one home would still interleave their reports, captures and
//! `unverified/` files. So a run first creates `$AMEM_HOME/amem.lock` with
//! `create_new` (atomic: exactly one creator wins) and writes who it is. A
//! second run reads that and fails with a message naming the holder.
//!
//! A lock left by a killed run is detected as stale when it was written on
//! this host and its pid is no longer alive; it is then removed and taken.
//! A lock from another host (a home on a network share) is never broken
//! automatically, because we cannot see that host's processes. A recycled
//! pid makes a stale lock look alive: the error says which file to delete.
//!
//! A lock file that does not say who holds it (empty, or cut short: a run
//! killed between creating the file and writing it, or a full disk) is
//! waited on for [`DAMAGED_LOCK_GRACE`] (a live run writes its line right
//! after creating the file), then removed and taken. Either recovery is
//! logged as a warning and kept in [`HomeLock::recovered`] so the command
//! can say what it removed.

use crate::{Error, Result};
use jiff::Timestamp;
use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

/// The lock file's name inside the home.
pub const LOCK_FILE: &str = "amem.lock";

/// How long a lock file that names no holder is left alone before it is
/// taken as the remains of a run that died while taking it.
pub const DAMAGED_LOCK_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Who holds a home lock, as written in the lock file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockHolder {
    /// Process id.
    pub pid: u32,
    /// Host name.
    pub host: String,
    /// When the lock was taken, RFC 3339.
    pub started_at: String,
    /// The command line that took it.
    pub command: String,
}

impl LockHolder {
    fn render(&self) -> String {
        format!("pid={}\nhost={}\nstarted_at={}\ncommand={}\n", self.pid, self.host, self.started_at, self.command)
    }

    fn parse(text: &str) -> Option<LockHolder> {
        let mut pid = None;
        let mut host = None;
        let mut started_at = String::new();
        let mut command = String::new();
        for line in text.lines() {
            match line.split_once('=') {
                Some(("pid", v)) => pid = v.trim().parse().ok(),
                Some(("host", v)) => host = Some(v.to_string()),
                Some(("started_at", v)) => started_at = v.to_string(),
                Some(("command", v)) => command = v.to_string(),
                _ => {}
            }
        }
        Some(LockHolder { pid: pid?, host: host?, started_at, command })
    }

    fn describe(&self) -> String {
        format!("pid {} on host {} since {} ({})", self.pid, self.host, self.started_at, self.command)
    }
}

/// A held home lock; dropping it removes the lock file (if it is still ours).
#[derive(Debug)]
pub struct HomeLock {
    path: PathBuf,
    holder: LockHolder,
    recovered: Option<String>,
}

impl HomeLock {
    /// Take the lock on `home` for `command` (the command line, for the
    /// message another run will show).
    ///
    /// # Errors
    /// [`Error::Locked`] naming the holder when another live run has it;
    /// [`Error::LockIo`] when the file cannot be created or read.
    pub fn acquire(home: &Path, command: &str) -> Result<HomeLock> {
        fs::create_dir_all(home).map_err(|source| Error::Dir { path: home.to_path_buf(), source })?;
        let path = home.join(LOCK_FILE);
        let holder = LockHolder {
            pid: std::process::id(),
            host: host_name(),
            started_at: Timestamp::now().to_string(),
            command: command.replace('\n', " "),
        };
        let mut recovered: Option<String> = None;
        let waiting_since = std::time::Instant::now();
        // Three attempts at most: each retry follows the removal of a stale
        // or damaged lock (waiting on a damaged one does not count).
        let mut attempts = 0;
        while attempts < 3 {
            attempts += 1;
            match fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    let mut written = f.write_all(holder.render().as_bytes()).and_then(|()| f.sync_all());
                    if written.as_ref().is_err_and(|e| e.kind() == ErrorKind::StorageFull)
                        && let Some(freed) = truncate_leftover_wal(home)
                    {
                        written = f.set_len(0).and_then(|()| f.write_all(holder.render().as_bytes())).and_then(|()| f.sync_all());
                        match &mut written {
                            Ok(()) => {
                                tracing::warn!("{freed}");
                                recovered = Some(recovered.map_or(freed.clone(), |r| format!("{r}; {freed}")));
                            }
                            Err(e) => *e = std::io::Error::new(e.kind(), format!("{e}; {freed}")),
                        }
                    }
                    if let Err(source) = written {
                        let _ = fs::remove_file(&path);
                        return Err(Error::LockIo { path, source });
                    }
                    if let Some(fixed) = repair_readonly_sidecars(home) {
                        tracing::warn!("{fixed}");
                        recovered = Some(recovered.map_or(fixed.clone(), |r| format!("{r}; {fixed}")));
                    }
                    return Ok(HomeLock { path, holder, recovered });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    let text = match amem_records::source_file::read_file_to_string(&path, amem_records::source_file::Limit::LOCK) {
                        Ok(t) => t,
                        // Removed between our create and our read: try again.
                        Err(e) if e.kind() == ErrorKind::NotFound => continue,
                        Err(source) => return Err(Error::LockIo { path, source }),
                    };
                    let why = match LockHolder::parse(&text) {
                        Some(h) if h.host == holder.host && !is_alive(h.pid) => {
                            // Stale: the holder died without removing its lock.
                            format!("removed the stale lock {} of {}, which is no longer running", path.display(), h.describe())
                        }
                        Some(h) => return Err(Error::Locked { home: home.to_path_buf(), lock: path, holder: h.describe() }),
                        None => {
                            let age = fs::metadata(&path).and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
                            if age.is_none_or(|a| a < DAMAGED_LOCK_GRACE) {
                                if waiting_since.elapsed() < DAMAGED_LOCK_GRACE {
                                    // Maybe being written right now: look again shortly.
                                    attempts -= 1;
                                    std::thread::sleep(std::time::Duration::from_millis(50));
                                    continue;
                                }
                                return Err(Error::Locked {
                                    home: home.to_path_buf(),
                                    lock: path,
                                    holder: "a lock file that does not say who holds it".to_string(),
                                });
                            }
                            format!(
                                "removed the lock {} ({} bytes, naming no holder, unchanged for {} s): left by a run that died while taking it",
                                path.display(),
                                text.len(),
                                age.map_or(0, |a| a.as_secs())
                            )
                        }
                    };
                    match fs::remove_file(&path) {
                        Ok(()) => {}
                        Err(e) if e.kind() == ErrorKind::NotFound => {}
                        Err(source) => return Err(Error::LockIo { path, source }),
                    }
                    tracing::warn!("{why}");
                    recovered = Some(why);
                }
                Err(source) => return Err(Error::LockIo { path, source }),
            }
        }
        Err(Error::Locked { home: home.to_path_buf(), lock: path, holder: "another run that took it at the same moment".to_string() })
    }

    /// What was removed to take the lock (a stale or damaged lock file), if anything.
    pub fn recovered(&self) -> Option<&str> {
        self.recovered.as_deref()
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Who we wrote into it.
    pub fn holder(&self) -> &LockHolder {
        &self.holder
    }

    /// Who holds the lock on `home`, if anyone (for `amem` status output).
    ///
    /// # Errors
    /// The lock file exists but cannot be read.
    pub fn holder_of(home: &Path) -> Result<Option<LockHolder>> {
        let path = home.join(LOCK_FILE);
        match amem_records::source_file::read_file_to_string(&path, amem_records::source_file::Limit::LOCK) {
            Ok(t) => Ok(LockHolder::parse(&t)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(source) => Err(Error::LockIo { path, source }),
        }
    }
}

impl Drop for HomeLock {
    fn drop(&mut self) {
        // Only remove the file if it still names us: a lock broken as stale
        // by someone else and retaken is theirs now.
        if let Ok(t) = amem_records::source_file::read_file_to_string(&self.path, amem_records::source_file::Limit::LOCK)
            && LockHolder::parse(&t).is_some_and(|h| h.pid == self.holder.pid && h.started_at == self.holder.started_at)
        {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// SQLite gives a new `-shm` index and `-wal` log the permissions of their
/// database: a run on a read-only `ledger.sqlite` leaves them read-only,
/// and once the database is writable again the next run opens it read-only
/// through them and fails ("attempt to write a readonly database"). With
/// the home lock held, give each its owner's write permission back when the
/// database has it (both are SQLite's own; nothing else writes them), so the
/// run that finds them is the run that recovers. Returns what was done, if
/// anything.
fn repair_readonly_sidecars(home: &Path) -> Option<String> {
    let db = home.join(crate::LEDGER_FILE);
    if fs::metadata(&db).ok()?.permissions().readonly() {
        return None;
    }
    let mut done = Vec::new();
    for suffix in ["-shm", "-wal"] {
        let file = home.join(format!("{}{suffix}", crate::LEDGER_FILE));
        let Ok(meta) = fs::metadata(&file) else { continue };
        if !meta.permissions().readonly() {
            continue;
        }
        let mut p = meta.permissions();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            p.set_mode(meta.permissions().mode() | 0o200);
        }
        #[cfg(not(unix))]
        p.set_readonly(false);
        done.push(match fs::set_permissions(&file, p) {
            Ok(()) => format!("made {} writable again (left read-only by a run on a read-only ledger)", file.display()),
            Err(e) => format!("{} is read-only and cannot be made writable ({e}): delete it while no amem runs", file.display()),
        });
    }
    (!done.is_empty()).then(|| done.join("; "))
}

/// The disk is full and the lock cannot be written: a write-ahead log left
/// by a run that stopped mid-write (killed, or out of disk before its
/// close) may be what fills it. Its frames past the last commit are
/// garbage, and a truncating checkpoint copies the committed ones back and
/// empties it. Our lock file exists (empty, ours), so no other amem run
/// takes the ledger meanwhile. Returns what was done, when the log had
/// anything to free.
fn truncate_leftover_wal(home: &Path) -> Option<String> {
    let db = home.join(crate::LEDGER_FILE);
    let wal = home.join(format!("{}-wal", crate::LEDGER_FILE));
    let before = fs::metadata(&wal).ok()?.len();
    if before == 0 || !db.is_file() {
        return None;
    }
    let checkpoint = rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
        .and_then(|c| c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get::<_, i64>(0)));
    let after = fs::metadata(&wal).map_or(0, |m| m.len());
    Some(match checkpoint {
        Ok(0) if after < before => {
            format!("the disk is full: emptied {} ({before} bytes, left by a run that stopped mid-write)", wal.display())
        }
        Ok(_) | Err(_) => format!(
            "the disk is full and {} ({before} bytes, left by a run that stopped mid-write) could not be emptied{}: free some space",
            wal.display(),
            checkpoint.err().map(|e| format!(" ({e})")).unwrap_or_default()
        ),
    })
}

/// This machine's host name.
fn host_name() -> String {
    #[cfg(unix)]
    {
        let u = rustix::system::uname();
        let n = u.nodename().to_string_lossy().into_owned();
        if !n.is_empty() {
            return n;
        }
    }
    std::env::var("HOSTNAME").or_else(|_| std::env::var("COMPUTERNAME")).unwrap_or_else(|_| "unknown-host".to_string())
}

/// True unless the process is known to be gone. `kill(pid, 0)` answers
/// ESRCH for no such process and EPERM for one that exists under another
/// user (alive).
fn is_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Some(p) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) else {
            return false;
        };
        !matches!(rustix::process::test_kill_process(p), Err(rustix::io::Errno::SRCH))
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_run_is_refused_with_the_holder_named() {
        let dir = tempfile::tempdir().unwrap();
        let first = HomeLock::acquire(dir.path(), "amem audit chat-history --since last-week").unwrap();
        let err = HomeLock::acquire(dir.path(), "amem audit chat-history").unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, Error::Locked { .. }), "{msg}");
        assert!(msg.contains(&format!("pid {}", std::process::id())), "{msg}");
        assert!(msg.contains(&host_name()), "{msg}");
        assert!(msg.contains("amem audit chat-history --since last-week"), "{msg}");
        assert!(msg.contains("amem.lock"), "{msg}");
        drop(first);
        assert!(!dir.path().join(LOCK_FILE).exists());
        let again = HomeLock::acquire(dir.path(), "x").unwrap();
        assert_eq!(HomeLock::holder_of(dir.path()).unwrap().unwrap().pid, std::process::id());
        drop(again);
    }

    #[test]
    fn stale_lock_of_a_dead_pid_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        // A child that has exited and been reaped: its pid is dead.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = LockHolder { pid: dead, host: host_name(), started_at: "2020-01-01T00:00:00Z".into(), command: "amem old".into() };
        fs::write(dir.path().join(LOCK_FILE), stale.render()).unwrap();
        let lock = HomeLock::acquire(dir.path(), "amem new").unwrap();
        assert_eq!(lock.holder().command, "amem new");
    }

    #[test]
    fn lock_from_another_host_is_not_broken() {
        let dir = tempfile::tempdir().unwrap();
        let other =
            LockHolder { pid: 1, host: "elsewhere.example".into(), started_at: "2020-01-01T00:00:00Z".into(), command: "amem".into() };
        fs::write(dir.path().join(LOCK_FILE), other.render()).unwrap();
        let msg = HomeLock::acquire(dir.path(), "amem").unwrap_err().to_string();
        assert!(msg.contains("elsewhere.example"), "{msg}");
        assert!(msg.contains("delete"), "{msg}");
    }

    /// Issue 16: a zero-byte `amem.lock` (a run killed between creating and
    /// writing it) blocked every run. It is taken once it has sat unchanged
    /// for the grace period, and the removal is reported.
    #[test]
    fn r16_empty_lock_is_recovered_with_a_message() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        let f = fs::File::create(&path).unwrap();
        f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60)).unwrap();
        drop(f);
        let lock = HomeLock::acquire(dir.path(), "amem new").unwrap();
        assert_eq!(lock.holder().command, "amem new");
        let why = lock.recovered().unwrap();
        assert!(why.contains("0 bytes, naming no holder") && why.contains("amem.lock"), "{why}");
        drop(lock);
        // A fresh empty lock (maybe being written) is waited on, then taken
        // once it has stayed empty for the grace period.
        fs::write(&path, "").unwrap();
        let started = std::time::Instant::now();
        let lock = HomeLock::acquire(dir.path(), "amem newer").unwrap();
        assert!(started.elapsed() >= DAMAGED_LOCK_GRACE - std::time::Duration::from_millis(100));
        assert!(lock.recovered().is_some());
    }

    #[test]
    fn stale_lock_removal_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = LockHolder { pid: dead, host: host_name(), started_at: "2020-01-01T00:00:00Z".into(), command: "amem old".into() };
        fs::write(dir.path().join(LOCK_FILE), stale.render()).unwrap();
        let lock = HomeLock::acquire(dir.path(), "amem new").unwrap();
        assert!(lock.recovered().unwrap().contains(&format!("pid {dead}")), "{:?}", lock.recovered());
    }

    /// Issue 16, finding 6, and issue 40: a read-only `ledger.sqlite-shm`
    /// and `-wal` left behind by a run on a read-only ledger are made
    /// writable again when the lock is taken, so the first run after the
    /// ledger is restored works (before, the `-wal` was left read-only and
    /// that run failed on "attempt to write a readonly database").
    #[cfg(unix)]
    #[test]
    fn r16_leftover_readonly_shm_and_wal_are_made_writable() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(crate::LEDGER_FILE), b"").unwrap();
        let sidecars = ["-shm", "-wal"].map(|s| dir.path().join(format!("{}{s}", crate::LEDGER_FILE)));
        for f in &sidecars {
            fs::write(f, b"").unwrap();
            fs::set_permissions(f, fs::Permissions::from_mode(0o444)).unwrap();
        }
        let lock = HomeLock::acquire(dir.path(), "amem").unwrap();
        for f in &sidecars {
            assert_eq!(fs::metadata(f).unwrap().permissions().mode() & 0o777, 0o644, "{}", f.display());
            assert!(lock.recovered().unwrap().contains(&format!("made {} writable again", f.display())), "{:?}", lock.recovered());
        }
        drop(lock);
        // Nothing to do the next time.
        assert!(HomeLock::acquire(dir.path(), "amem").unwrap().recovered().is_none());
        // While the database itself is read-only, they are left as they are.
        fs::set_permissions(dir.path().join(crate::LEDGER_FILE), fs::Permissions::from_mode(0o444)).unwrap();
        fs::set_permissions(&sidecars[1], fs::Permissions::from_mode(0o444)).unwrap();
        assert!(HomeLock::acquire(dir.path(), "amem").unwrap().recovered().is_none());
        assert_eq!(fs::metadata(&sidecars[1]).unwrap().permissions().mode() & 0o777, 0o444);
    }

    #[test]
    fn alive_check() {
        assert!(is_alive(std::process::id()));
    }
}
