//! The sparse grid's open-addressing hash table from an occupied row's key to its first rank.

/// An open-addressing hash table from a 63-bit key to a small value, cleared every step; at
/// most half full, so probes stay short.
#[derive(Clone, Debug, Default)]
pub(super) struct KeyTable<T: Copy + Default> {
    slots: Vec<(u64, T)>,
    /// `64 − log2(slots.len())`: a key's home slot is the top bits of its Fibonacci hash.
    shift: u32,
}

/// A free slot (no key is this large: keys stay below 2⁶³).
pub(super) const EMPTY: u64 = u64::MAX;

impl<T: Copy + Default> KeyTable<T> {
    /// Empties the table, sized for up to `keys` keys.
    pub(super) fn reset(&mut self, keys: usize) {
        let len = (2 * keys).next_power_of_two().max(16);
        self.slots.clear();
        self.slots.resize(len, (EMPTY, T::default()));
        self.shift = 64 - len.trailing_zeros();
    }

    /// The slot holding `key`, or the free slot where it belongs.
    #[inline]
    pub(super) fn find(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut at = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        while self.slots[at].0 != key && self.slots[at].0 != EMPTY {
            at = (at + 1) & mask;
        }
        at
    }

    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<T> {
        if self.slots.is_empty() {
            return None;
        }
        let (k, v) = self.slots[self.find(key)];
        (k == key).then_some(v)
    }

    /// The value of `key`, inserting `make()` first if it is absent.
    #[inline]
    pub(super) fn get_or_insert(&mut self, key: u64, make: impl FnOnce() -> T) -> T {
        let at = self.find(key);
        if self.slots[at].0 == EMPTY {
            self.slots[at] = (key, make());
        }
        self.slots[at].1
    }

    pub(super) fn clear(&mut self) {
        self.slots.clear();
    }

    pub(super) fn bytes(&self) -> usize {
        self.slots.capacity() * size_of::<(u64, T)>()
    }
}
