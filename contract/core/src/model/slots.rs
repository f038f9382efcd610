//! An array's slots that exist (the others are holes), by index ascending.
//!
//! A sorted list rather than a `BTreeMap`: most arrays hold a few slots,
//! and built in order, one after another, while a B-tree allocates a node
//! of eleven entries for even one slot. A 68,116-deep nest of one-slot
//! arrays (a generated case's argument, eight times over) allocated a
//! 400-odd-byte node per level. The methods are the map's that the model
//! uses, with its meaning: one property per index, the last written wins.

use super::heap::Property;

/// The slots of an array, sorted by index, each index once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Slots(Vec<(u32, Property)>);

impl Slots {
    pub fn new() -> Slots {
        Slots::default()
    }

    /// The property at `index`, if that slot exists.
    pub fn get(&self, index: &u32) -> Option<&Property> {
        let at = self.0.binary_search_by_key(index, |(i, _)| *i).ok()?;
        self.0.get(at).map(|(_, p)| p)
    }

    /// Sets the slot at `index`, returning the property it replaced.
    pub fn insert(&mut self, index: u32, prop: Property) -> Option<Property> {
        // slots are mostly written in order: past the last one, a push
        if self.0.last().is_none_or(|(last, _)| *last < index) {
            self.0.push((index, prop));
            return None;
        }
        match self.0.binary_search_by_key(&index, |(i, _)| *i) {
            Ok(at) => self
                .0
                .get_mut(at)
                .map(|slot| std::mem::replace(&mut slot.1, prop)),
            Err(at) => {
                self.0.insert(at, (index, prop));
                None
            }
        }
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The slots, index ascending.
    pub fn iter(&self) -> impl Iterator<Item = (&u32, &Property)> {
        self.0.iter().map(|(i, p)| (i, p))
    }

    /// The properties, index ascending.
    pub fn values(&self) -> impl Iterator<Item = &Property> {
        self.0.iter().map(|(_, p)| p)
    }

    /// The slot of the highest index.
    pub fn last_key_value(&self) -> Option<(&u32, &Property)> {
        self.0.last().map(|(i, p)| (i, p))
    }
}

impl<'a> IntoIterator for &'a Slots {
    type Item = (&'a u32, &'a Property);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (u32, Property)>,
        fn(&'a (u32, Property)) -> (&'a u32, &'a Property),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(i, p)| (i, p))
    }
}

impl FromIterator<(u32, Property)> for Slots {
    /// As the slots written in the iterator's order: an index given twice
    /// holds the later property.
    fn from_iter<I: IntoIterator<Item = (u32, Property)>>(iter: I) -> Slots {
        let mut slots = Slots::new();
        for (index, prop) in iter {
            slots.insert(index, prop);
        }
        slots
    }
}

impl<const N: usize> From<[(u32, Property); N]> for Slots {
    fn from(slots: [(u32, Property); N]) -> Slots {
        slots.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The slots and a `BTreeMap` given the same writes hold the same.
    fn check(writes: &[(u32, f64)]) {
        let mut slots = Slots::new();
        let mut map = BTreeMap::new();
        for &(i, v) in writes {
            assert_eq!(
                slots.insert(i, Property::data(v)),
                map.insert(i, Property::data(v)),
                "{writes:?}"
            );
        }
        let listed: Vec<(u32, Property)> = slots.iter().map(|(i, p)| (*i, p.clone())).collect();
        let expected: Vec<(u32, Property)> = map.iter().map(|(i, p)| (*i, p.clone())).collect();
        assert_eq!(listed, expected, "{writes:?}");
        for i in 0..12 {
            assert_eq!(slots.get(&i), map.get(&i), "{writes:?} at {i}");
        }
        assert_eq!(slots.len(), map.len());
        assert_eq!(
            slots.last_key_value().map(|(i, _)| *i),
            map.last_key_value().map(|(i, _)| *i)
        );
        let collected: Slots = writes
            .iter()
            .map(|&(i, v)| (i, Property::data(v)))
            .collect();
        assert_eq!(collected, slots, "{writes:?}");
    }

    #[test]
    fn slots_hold_what_a_map_given_the_same_writes_holds() {
        check(&[]);
        check(&[(0, 1.0), (1, 2.0), (2, 3.0)]);
        check(&[(5, 1.0), (2, 2.0), (9, 3.0), (2, 4.0), (0, 5.0), (9, 6.0)]);
        check(&[
            (3, 1.0),
            (3, 2.0),
            (1, 3.0),
            (7, 4.0),
            (4, 5.0),
            (1, 6.0),
            (10, 7.0),
        ]);
    }
}
