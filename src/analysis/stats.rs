//! Per computation and per module: instructions by opcode, arrays by element type, logical
//! against padded bytes under the layouts present, and the arrays that pad the most, each
//! with a reason and a line of advice (measured as layout assignment's report measures).

use compact_str::CompactString;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::assign::report::{defines_buffer, Padding};
use crate::ir::module::{Computation, Module};
use crate::ir::PhysicalLayout;

/// How many padding offenders each computation and the module list.
pub const OFFENDERS: usize = 5;

/// Statistics of a module, the whole and each computation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModuleStats {
    /// The module's name.
    pub module: String,
    /// The whole module.
    pub total: Counts,
    /// In the module's print order.
    pub computations: Vec<ComputationStats>,
}

/// Statistics of one computation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComputationStats {
    /// The computation's name.
    #[serde(serialize_with = "serialize_str")]
    pub name: CompactString,
    /// Whether this is the module's entry computation.
    pub entry: bool,
    /// What the computation holds, flattened into this object in JSON.
    #[serde(flatten)]
    pub counts: Counts,
}

/// Instruction, array and byte counts over a computation or a module.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counts {
    /// Every instruction, whatever it defines.
    pub instructions: usize,
    /// Opcode name → how many instructions have it.
    pub opcodes: NameCounts<usize>,
    /// Element type → arrays of it among the buffers (tuple leaves included).
    pub element_types: NameCounts<TypeCount>,
    /// Bytes of the buffers' data without padding.
    pub logical_bytes: i64,
    /// Bytes the buffers take under their layouts, padding included.
    pub padded_bytes: i64,
    /// Padding over padded bytes, 0 when there are none.
    pub padding_fraction: f64,
    /// The arrays that pad the most, at most [`OFFENDERS`], worst first.
    pub worst_padding: Vec<crate::assign::PaddingOffender>,
}

/// Names, each with what is counted of it, in the order of the names: a map in JSON, a short
/// vector in memory. A module can have tens of thousands of computations of a handful of
/// opcodes each, and a map's smallest node holds eleven.
#[derive(Clone, Debug, PartialEq)]
pub struct NameCounts<T>(Vec<(CompactString, T)>);

impl<T> Default for NameCounts<T> {
    fn default() -> Self {
        NameCounts(Vec::new())
    }
}

impl<T> NameCounts<T> {
    /// The names and their counts, in the order of the names.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.0.iter().map(|(name, count)| (name.as_str(), count))
    }

    /// The count of `name`, if it was counted.
    pub fn get(&self, name: &str) -> Option<&T> {
        let index = self
            .0
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()?;
        self.0.get(index).map(|(_, count)| count)
    }

    /// How many names were counted.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no name was counted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The count of `name`, from the default if it is new.
    fn entry(&mut self, name: &str) -> &mut T
    where
        T: Default,
    {
        let index = match self.0.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
            Ok(index) => index,
            Err(index) => {
                self.0.insert(index, (name.into(), T::default()));
                index
            }
        };
        &mut self.0[index].1
    }

    /// The same counts without room to spare, as they are kept once counted.
    fn shrunk(mut self) -> Self {
        self.0.shrink_to_fit();
        self
    }
}

fn serialize_str<S: Serializer>(text: &CompactString, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(text)
}

impl<T: Serialize> Serialize for NameCounts<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, count) in &self.0 {
            map.serialize_entry(name.as_str(), count)?;
        }
        map.end()
    }
}

/// The arrays of one element type and their bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TypeCount {
    /// Buffers of this element type, tuple leaves included.
    pub arrays: usize,
    /// Their bytes without padding.
    pub logical_bytes: i64,
    /// Their bytes under their layouts, padding included.
    pub padded_bytes: i64,
}

/// Measures `module` under the layouts it has (arrays without a layout take the default
/// one, without tiles, so they pad nothing).
pub fn module_stats(module: &Module) -> ModuleStats {
    let mut total = Accumulator::default();
    let mut computations = Vec::with_capacity(module.computations().len());
    for computation in module.computations() {
        let mut own = Accumulator::default();
        own.add(computation);
        total.add(computation);
        computations.push(ComputationStats {
            name: computation.name.as_str().into(),
            entry: computation.is_entry,
            counts: own.finish(),
        });
    }
    ModuleStats {
        module: module.name.clone(),
        total: total.finish(),
        computations,
    }
}

struct Accumulator<'a> {
    instructions: usize,
    opcodes: NameCounts<usize>,
    element_types: NameCounts<TypeCount>,
    padding: Padding<'a>,
}

impl Default for Accumulator<'_> {
    fn default() -> Self {
        Accumulator {
            instructions: 0,
            opcodes: NameCounts::default(),
            element_types: NameCounts::default(),
            padding: Padding::keeping(OFFENDERS),
        }
    }
}

impl<'a> Accumulator<'a> {
    fn add(&mut self, computation: &'a Computation) {
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            self.instructions += 1;
            *self.opcodes.entry(instruction.opcode.name()) += 1;
            if !defines_buffer(computation, instruction) {
                continue;
            }
            for array in instruction.shape.leaves() {
                let count = self.element_types.entry(array.element_type.name());
                count.arrays += 1;
                if let Ok(memory) = PhysicalLayout::new(array) {
                    count.logical_bytes =
                        count.logical_bytes.saturating_add(memory.unpadded_bytes());
                    count.padded_bytes = count.padded_bytes.saturating_add(memory.bytes());
                }
            }
        }
        self.padding.add_computation(computation);
    }

    fn finish(self) -> Counts {
        let padding = self.padding.finish(OFFENDERS);
        let waste = padding.padded_bytes - padding.unpadded_bytes;
        Counts {
            instructions: self.instructions,
            opcodes: self.opcodes.shrunk(),
            element_types: self.element_types.shrunk(),
            logical_bytes: padding.unpadded_bytes,
            padded_bytes: padding.padded_bytes,
            padding_fraction: if padding.padded_bytes > 0 {
                waste as f64 / padding.padded_bytes as f64
            } else {
                0.0
            },
            worst_padding: padding.worst_padding,
        }
    }
}

impl ModuleStats {
    /// The text `hlo-layout stats` prints: the module's totals, then each computation's.
    pub fn to_text(&self) -> String {
        let mut out = format!("module {}\n", self.module);
        write_counts(&mut out, &self.total, "  ");
        for computation in &self.computations {
            out.push_str(&format!(
                "\ncomputation {}{}\n",
                computation.name,
                if computation.entry { " (entry)" } else { "" }
            ));
            write_counts(&mut out, &computation.counts, "  ");
        }
        out
    }
}

fn write_counts(out: &mut String, counts: &Counts, indent: &str) {
    let opcodes = sorted_by_count(counts.opcodes.iter().map(|(k, &v)| (k, v)));
    out.push_str(&format!(
        "{indent}instructions  {}: {}\n",
        counts.instructions,
        opcodes.join(", ")
    ));
    let types = sorted_by_count(counts.element_types.iter().map(|(k, v)| (k, v.arrays)));
    out.push_str(&format!(
        "{indent}arrays        {}\n",
        if types.is_empty() {
            "none".to_string()
        } else {
            types.join(", ")
        }
    ));
    out.push_str(&format!(
        "{indent}bytes         {} logical, {} padded ({:.1}% padding)\n",
        counts.logical_bytes,
        counts.padded_bytes,
        100.0 * counts.padding_fraction
    ));
    if counts.worst_padding.is_empty() {
        return;
    }
    out.push_str(&format!("{indent}worst padding\n"));
    for offender in &counts.worst_padding {
        out.push_str(&format!(
            "{indent}  {} bytes of padding in {} ({} in {}): {}\n{indent}    advice: {}\n",
            offender.padded_bytes - offender.unpadded_bytes,
            offender.shape,
            offender.instruction,
            offender.computation,
            offender.reason,
            offender.advice
        ));
    }
}

/// `name count` entries, most frequent first, then by name.
fn sorted_by_count<'a>(entries: impl Iterator<Item = (&'a str, usize)>) -> Vec<String> {
    let mut entries: Vec<(&str, usize)> = entries.collect();
    entries.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    entries
        .into_iter()
        .map(|(name, count)| format!("{name} {count}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Counted in any order, the names keep a map's order and serialize as the map does.
    #[test]
    fn name_counts_order_and_serialize_as_a_map_does() {
        let names = [
            "convert",
            "add",
            "all-reduce",
            "add",
            "Z",
            "tuple",
            "all-gather",
            "convert",
            "a",
            "add",
            "get-tuple-element",
            "",
        ];
        let mut counts = NameCounts::default();
        let mut map = BTreeMap::new();
        for name in names {
            *counts.entry(name) += 1;
            *map.entry(name.to_string()).or_insert(0usize) += 1;
        }
        let counts = counts.shrunk();
        assert!(counts
            .iter()
            .map(|(n, &c)| (n.to_string(), c))
            .eq(map.clone()));
        assert_eq!(counts.len(), map.len());
        assert_eq!(counts.get("add"), Some(&3));
        assert_eq!(counts.get("multiply"), None);
        assert_eq!(
            serde_json::to_string(&counts).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert!(NameCounts::<usize>::default().is_empty());
    }
}
