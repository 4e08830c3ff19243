//! Giving memory back to the system after a burst. glibc's allocator keeps the pages freed by a large request
//! in its arenas (one per thread that allocated), so a burst of uploads left the server's resident memory at
//! its peak for good; `malloc_trim` returns every arena's free pages. Other allocators and systems: nothing.

/// Returns the allocator's free pages to the system. Takes a few milliseconds on a large heap: call it off the
/// async threads, when a burst is over.
pub fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks glibc's own arenas under their locks; any thread may call it at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}
