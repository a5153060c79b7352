//! A computation's print order: a doubly linked list over graph node indices, with order
//! labels, so that inserting, removing and comparing positions are O(1).
//!
//! Invariant: labels increase along the list; the slice of ids the order gives is built
//! again after every edit, once, when next asked for.

use super::id::{generation, InstrId, Node};

/// No instruction: the end of the print order list.
const NIL: u32 = u32::MAX;
/// The label distance between neighbours when the list is (re)numbered.
const LABEL_GAP: u64 = 1 << 32;

/// One instruction's place in the print order.
#[derive(Clone, Copy, Debug)]
pub(super) struct Link {
    prev: u32,
    next: u32,
    /// Increases along the list, so comparing two labels compares print positions.
    label: u64,
}

/// The print order as a doubly linked list over node indices with order labels (an
/// order-maintenance list): insertion and removal are O(1), comparing positions is O(1), and
/// the contiguous slice `order()` returns is rebuilt lazily, once per batch of edits.
#[derive(Debug, Default)]
pub(super) struct OrderList {
    /// Indexed by node index; entries of removed nodes are stale until reused.
    pub(super) links: Vec<Link>,
    head: u32,
    pub(super) tail: u32,
    pub(super) len: usize,
    // `OnceLock`, not `OnceCell`: the verifier reads computations from two threads.
    slice: std::sync::OnceLock<Box<[InstrId]>>,
}

// Not derived: the slice holds ids with the computation's tag, and a clone has another tag.
impl Clone for OrderList {
    fn clone(&self) -> OrderList {
        OrderList {
            links: self.links.clone(),
            head: self.head,
            tail: self.tail,
            len: self.len,
            slice: std::sync::OnceLock::new(),
        }
    }
}

impl OrderList {
    /// The order as ids with tag `tag`, the computation's, and its `generations`.
    pub(super) fn slice(&self, tag: u32, generations: &[u32]) -> &[InstrId] {
        self.slice.get_or_init(|| {
            let mut out = Vec::with_capacity(self.len);
            let mut at = if self.len == 0 { NIL } else { self.head };
            while at != NIL {
                out.push(InstrId {
                    index: at,
                    tag,
                    generation: generation(generations, at as usize),
                });
                at = self.links[at as usize].next;
            }
            // Exactly `len` ids, so boxing keeps the block.
            out.into_boxed_slice()
        })
    }

    pub(super) fn label(&self, id: Node) -> u64 {
        self.links.get(id.index()).map_or(u64::MAX, |l| l.label)
    }

    fn edited(&mut self) {
        self.slice.take();
    }

    fn slot(&mut self, id: Node) -> &mut Link {
        let index = id.index();
        if index >= self.links.len() {
            let blank = Link {
                prev: NIL,
                next: NIL,
                label: 0,
            };
            self.links.resize(index + 1, blank);
        }
        &mut self.links[index]
    }

    pub(super) fn push_back(&mut self, id: Node) {
        self.edited();
        let index = id.index() as u32;
        let (prev, label) = if self.len == 0 {
            (NIL, LABEL_GAP)
        } else {
            let last = self.links[self.tail as usize].label;
            (self.tail, last.saturating_add(LABEL_GAP))
        };
        *self.slot(id) = Link {
            prev,
            next: NIL,
            label,
        };
        if prev == NIL {
            self.head = index;
        } else {
            self.links[prev as usize].next = index;
        }
        self.tail = index;
        self.len += 1;
        if label == u64::MAX {
            self.relabel_all();
        }
    }

    /// Links `id` just before `before`, which must be in the list.
    pub(super) fn insert_before(&mut self, before: Node, id: Node) {
        self.edited();
        let (index, next) = (id.index() as u32, before.index() as u32);
        let prev = self.links[next as usize].prev;
        *self.slot(id) = Link {
            prev,
            next,
            label: 0,
        };
        self.links[next as usize].prev = index;
        if prev == NIL {
            self.head = index;
        } else {
            self.links[prev as usize].next = index;
        }
        self.len += 1;
        let low = if prev == NIL {
            0
        } else {
            self.links[prev as usize].label
        };
        let high = self.links[next as usize].label;
        if high - low >= 2 {
            self.links[index as usize].label = low + (high - low) / 2;
        } else {
            self.relabel_around(index);
        }
    }

    /// Spreads the labels of the smallest window around `index` whose label range leaves
    /// a gap of at least the window's size between neighbours; windows double, so repeated
    /// insertions at one place cost O(log n) amortised rather than a renumbering each.
    fn relabel_around(&mut self, index: u32) {
        let (mut first, mut last, mut count) = (index, index, 1u64);
        loop {
            let low = match self.links[first as usize].prev {
                NIL => 0,
                p => self.links[p as usize].label,
            };
            let high = match self.links[last as usize].next {
                NIL => u64::MAX,
                n => self.links[n as usize].label,
            };
            let gap = (high - low) / (count + 1);
            if gap > count {
                let mut at = first;
                let mut label = low;
                loop {
                    label += gap;
                    self.links[at as usize].label = label;
                    if at == last {
                        return;
                    }
                    at = self.links[at as usize].next;
                }
            }
            if self.links[first as usize].prev == NIL && self.links[last as usize].next == NIL {
                self.relabel_all();
                return;
            }
            // Grow the window to twice its size, on whichever sides have room.
            let steps = count;
            for _ in 0..steps {
                if self.links[first as usize].prev != NIL {
                    first = self.links[first as usize].prev;
                    count += 1;
                }
                if self.links[last as usize].next != NIL {
                    last = self.links[last as usize].next;
                    count += 1;
                }
            }
        }
    }

    fn relabel_all(&mut self) {
        let gap = (u64::MAX / (self.len as u64 + 1)).min(LABEL_GAP);
        let mut at = if self.len == 0 { NIL } else { self.head };
        let mut label = 0;
        while at != NIL {
            label += gap;
            self.links[at as usize].label = label;
            at = self.links[at as usize].next;
        }
    }

    pub(super) fn unlink(&mut self, id: Node) {
        self.edited();
        let Link { prev, next, .. } = self.links[id.index()];
        match prev {
            NIL => self.head = next,
            p => self.links[p as usize].next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.links[n as usize].prev = prev,
        }
        self.len -= 1;
    }

    /// Replaces the whole order with `ids`.
    pub(super) fn rebuild(&mut self, ids: &[Node]) {
        self.edited();
        self.len = 0;
        for &id in ids {
            self.push_back(id);
        }
    }
}
