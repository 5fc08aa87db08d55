//! `amem-alloc`: the binary's allocator: mimalloc for small blocks, the
//! system allocator for blocks of 1 MiB and more.
//!
//! Why the split: mimalloc v2 gives a block over 512 KiB a page of its own
//! (over 16 MiB, a segment of its own), and when another thread frees it (a
//! mail's bytes are cut out by the reading thread and freed by the parsing
//! worker) the memory waits for the owning thread to take it back, resident
//! meanwhile (a huge block is only marked `MADV_FREE`, which the kernel still
//! counts). So the peak RSS grew with the number of large messages rather
//! than with what was alive: `amem import gmail` on 64 mails of 30 MB
//! (`scripts/bench-importers-big-mail.py`) peaked at 422 MiB with two
//! workers (mimalloc's own stats: 14 huge segments at once), against a bound
//! of 122 MiB. With huge blocks alone on the system allocator it peaked at
//! 149 MiB; with every block from 1 MiB up, at 106 MiB (one worker: 129 MiB
//! before, 78 MiB after). glibc maps large blocks on their own and unmaps
//! them on free, from any thread. Blocks this size are few (a mail, a
//! model's weight matrix and activations), so the system allocator's cost
//! per call does not show: the x1 audit of `scripts/bench-audit.py` took
//! 14.6 and 14.2 s before, 13.7 and 15.4 s after (alternating runs), and
//! the MCP bench's model-on fact-check p99 was 243 ms before, 230 ms after.
//! The small allocations that dominate a run keep mimalloc's per-thread
//! free lists.

use std::alloc::{GlobalAlloc, Layout, System};

/// The size from which a block goes to the system allocator (see the
/// crate's comment for the measurements that chose it).
pub const HUGE_BLOCK: usize = 1 << 20;

/// mimalloc below [`HUGE_BLOCK`], the system allocator from it. A block is
/// freed by the allocator that made it: both are chosen by the layout's
/// size, which `dealloc` and `realloc` receive unchanged.
pub struct SplitAllocator;

fn is_huge(size: usize) -> bool {
    size >= HUGE_BLOCK
}

// SAFETY: each call is forwarded to the allocator the size selects, with the
// caller's own arguments; a block moves between the two only in `realloc`,
// by a fresh allocation, a copy of the smaller of the two sizes and a free
// of the old block through the allocator that made it.
unsafe impl GlobalAlloc for SplitAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged (a non-zero size is the caller's duty).
        unsafe { if is_huge(layout.size()) { System.alloc(layout) } else { mimalloc::MiMalloc.alloc(layout) } }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe { if is_huge(layout.size()) { System.alloc_zeroed(layout) } else { mimalloc::MiMalloc.alloc_zeroed(layout) } }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated with `layout`, so by the allocator its size selects.
        unsafe { if is_huge(layout.size()) { System.dealloc(ptr, layout) } else { mimalloc::MiMalloc.dealloc(ptr, layout) } }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (is_huge(layout.size()), is_huge(new_size)) {
            // SAFETY: the block stays with the allocator that made it.
            (false, false) => unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) },
            // SAFETY: as above.
            (true, true) => unsafe { System.realloc(ptr, layout, new_size) },
            _ => {
                let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else { return std::ptr::null_mut() };
                // SAFETY: `new_layout` is valid and non-zero (huge on one side, at least `layout`'s size on the other or
                // a shrink of a huge block, which is non-zero by the `GlobalAlloc::realloc` contract).
                let new = unsafe { self.alloc(new_layout) };
                if !new.is_null() {
                    // SAFETY: both blocks are live, distinct, and at least this long.
                    unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
                    // SAFETY: `ptr` was allocated with `layout` by this allocator.
                    unsafe { self.dealloc(ptr, layout) };
                }
                new
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test binary allocates through the split too.
    #[global_allocator]
    static ALLOCATOR: SplitAllocator = SplitAllocator;

    /// A block that grows across the threshold and shrinks back keeps its
    /// bytes, whichever allocator holds it.
    #[test]
    fn realloc_across_the_threshold_keeps_the_bytes() {
        let a = SplitAllocator;
        let small = Layout::from_size_align(4096, 8).unwrap();
        // SAFETY: the layouts are valid and non-zero, and each block is freed with the layout it has.
        unsafe {
            let p = a.alloc(small);
            assert!(!p.is_null());
            for i in 0..4096 {
                *p.add(i) = (i % 251) as u8;
            }
            let p = a.realloc(p, small, HUGE_BLOCK + 1);
            assert!(!p.is_null());
            *p.add(HUGE_BLOCK) = 7;
            let big = Layout::from_size_align(HUGE_BLOCK + 1, 8).unwrap();
            let p = a.realloc(p, big, 2 * HUGE_BLOCK);
            let bigger = Layout::from_size_align(2 * HUGE_BLOCK, 8).unwrap();
            assert_eq!(*p.add(HUGE_BLOCK), 7);
            let p = a.realloc(p, bigger, 100);
            for i in 0..100 {
                assert_eq!(*p.add(i), (i % 251) as u8);
            }
            a.dealloc(p, Layout::from_size_align(100, 8).unwrap());
            let z = a.alloc_zeroed(big);
            assert!((0..HUGE_BLOCK + 1).step_by(4099).all(|i| *z.add(i) == 0));
            a.dealloc(z, big);
        }
    }

    /// Vectors through the global allocator keep their contents when they
    /// grow past the threshold and shrink back.
    #[test]
    fn a_vector_grows_through_the_threshold() {
        let mut v: Vec<u32> = Vec::new();
        for i in 0..(HUGE_BLOCK as u32 / 2) {
            v.push(i);
        }
        assert!(v.iter().enumerate().step_by(10_007).all(|(i, &x)| x == i as u32));
        v.truncate(10);
        v.shrink_to_fit();
        assert_eq!(v, (0..10).collect::<Vec<_>>());
    }
}
