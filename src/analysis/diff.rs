//! A structural diff of two modules, as XLA's `hlo_diff` does it: computations and
//! instructions are matched first, then each matched pair is compared field by field.
//!
//! Matching, per pair of computations (the entries are always paired; called computations
//! pair through the instructions that call them):
//! 1. by name, unless names are ignored;
//! 2. bottom-up from the parameters: an instruction matches one with the same opcode, shape,
//!    parameter number or literal, attributes and already-matched operands in slot order;
//! 3. top-down from the root: matched users match their operands slot by slot when the
//!    opcodes agree;
//! 4. loosely bottom-up: the same opcode and matched operands, whatever the shape.
//!
//! Steps 2 to 4 repeat while they find new pairs; when they find none, step 3 runs once
//! matching operands of the same shape and arity (an `add` that became a `multiply`), and
//! everything repeats. Whatever stays unmatched was removed or added. Nothing depends on hash order: output follows the modules' print order.

use std::collections::{BTreeSet, HashMap, VecDeque};

use serde::Serialize;

use crate::ir::module::{Computation, ComputationId, InstrId, Instruction, Module, Payload};
use crate::ir::vocabulary::calls_computations;
use crate::print::print_ir_instruction_line;

/// How two modules are compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffOptions {
    /// Match and compare without names: renamed instructions and computations are equal.
    pub ignore_names: bool,
}

/// The differences between two modules: their headers, each computation and a summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModuleDiff {
    /// The modules are the same, header and computations, as the options compare them.
    pub equal: bool,
    /// Differences in the module's header: its name and attributes.
    pub module: Vec<FieldChange>,
    /// Every computation with a difference, in the first module's order, then the computations
    /// only the second has.
    pub computations: Vec<ComputationDiff>,
    /// The changes counted over every computation.
    pub summary: Summary,
}

/// One field that differs between two matched things, with both sides as text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldChange {
    /// What differs: `name`, `opcode`, `shape`, `operand N`, an attribute's name and so on.
    pub field: String,
    /// The first module's value; `(none)` for an attribute only the second has.
    pub left: String,
    /// The second module's value; `(none)` for an attribute only the first has.
    pub right: String,
}

/// The differences between two paired computations, or a computation only one module has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ComputationDiff {
    /// `None` when the computation is only in the second module.
    pub left: Option<String>,
    /// `None` when the computation is only in the first module.
    pub right: Option<String>,
    /// Whether the computation is its module's entry.
    pub entry: bool,
    /// Instructions matched with no difference.
    pub identical: usize,
    /// In print order, removed instructions where they stood.
    pub changes: Vec<Change>,
}

/// One instruction's difference, each side printed as its line of HLO text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// An instruction only the first module has.
    Removed {
        /// Its line in the first module.
        left: String,
    },
    /// An instruction only the second module has.
    Added {
        /// Its line in the second module.
        right: String,
    },
    /// A matched pair that differs in `fields`: name, opcode, shape, payload, `operand N`
    /// (a slot whose operands do not correspond) or `operands` (a different count),
    /// attributes, called, root.
    Changed {
        /// Its line in the first module.
        left: String,
        /// Its line in the second module.
        right: String,
        /// The fields that differ.
        fields: Vec<FieldChange>,
    },
}

/// Counts over a whole diff, as the text form's last line gives them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Computations with at least one change or a new name.
    pub computations_differing: usize,
    /// Instructions matched with no difference, in every paired computation.
    pub identical: usize,
    /// Matched instructions that differ.
    pub changed: usize,
    /// Instructions only the second module has.
    pub added: usize,
    /// Instructions only the first module has.
    pub removed: usize,
}

/// Matches the computations and instructions of `left` and `right` and compares each pair
/// field by field, as the module documentation describes.
pub fn diff_modules(left: &Module, right: &Module, options: DiffOptions) -> ModuleDiff {
    let pairs = pair_computations(left, right, options);
    let right_to_left: HashMap<ComputationId, ComputationId> =
        pairs.iter().map(|&(l, r)| (r, l)).collect();
    let mut diff = ModuleDiff {
        equal: true,
        module: module_changes(left, right, options),
        computations: Vec::new(),
        summary: Summary::default(),
    };
    let left_paired: HashMap<ComputationId, ComputationId> = pairs.iter().copied().collect();
    for l in left.computation_ids() {
        let a = left.computation(l);
        let computation = match left_paired.get(&l) {
            Some(&r) => {
                let context = Context {
                    left,
                    right,
                    right_to_left: &right_to_left,
                    options,
                };
                context.diff_computation(a, right.computation(r))
            }
            None => ComputationDiff {
                left: Some(a.name.to_string()),
                right: None,
                entry: a.is_entry,
                identical: 0,
                changes: a
                    .order()
                    .iter()
                    .map(|&id| Change::Removed { left: line(a, id) })
                    .collect(),
            },
        };
        diff.push(computation, options);
    }
    for r in right.computation_ids() {
        if right_to_left.contains_key(&r) {
            continue;
        }
        let b = right.computation(r);
        diff.push(
            ComputationDiff {
                left: None,
                right: Some(b.name.to_string()),
                entry: b.is_entry,
                identical: 0,
                changes: b
                    .order()
                    .iter()
                    .map(|&id| Change::Added { right: line(b, id) })
                    .collect(),
            },
            options,
        );
    }
    diff.equal = diff.module.is_empty() && diff.computations.is_empty();
    diff
}

impl ModuleDiff {
    fn push(&mut self, computation: ComputationDiff, options: DiffOptions) {
        self.summary.identical += computation.identical;
        let renamed = !options.ignore_names
            && computation.left.is_some()
            && computation.right.is_some()
            && computation.left != computation.right;
        if computation.changes.is_empty() && !renamed {
            return;
        }
        for change in &computation.changes {
            match change {
                Change::Removed { .. } => self.summary.removed += 1,
                Change::Added { .. } => self.summary.added += 1,
                Change::Changed { .. } => self.summary.changed += 1,
            }
        }
        self.summary.computations_differing += 1;
        self.computations.push(computation);
    }

    /// A unified-diff-like text: `-` removed, `+` added, `~` changed (the second module's
    /// line, then each differing field as `left -> right`), and a summary line.
    pub fn to_text(&self, left_name: &str, right_name: &str) -> String {
        let mut out = format!("--- {left_name}\n+++ {right_name}\n");
        for change in &self.module {
            out += &format!(
                "~ module {}: {} -> {}\n",
                change.field, change.left, change.right
            );
        }
        for computation in &self.computations {
            let entry = if computation.entry { " (entry)" } else { "" };
            let title = match (&computation.left, &computation.right) {
                (Some(l), Some(r)) if l == r => format!("computation {l}{entry}"),
                (Some(l), Some(r)) => format!("computation {l} -> {r}{entry}"),
                (Some(l), None) => format!("computation {l}{entry} (removed)"),
                (None, Some(r)) => format!("computation {r}{entry} (added)"),
                (None, None) => String::new(),
            };
            out += &format!("@@ {title} @@\n");
            for change in &computation.changes {
                match change {
                    Change::Removed { left } => out += &format!("- {left}\n"),
                    Change::Added { right } => out += &format!("+ {right}\n"),
                    Change::Changed { right, fields, .. } => {
                        out += &format!("~ {right}\n");
                        for field in fields {
                            out += &format!(
                                "    {}: {} -> {}\n",
                                field.field, field.left, field.right
                            );
                        }
                    }
                }
            }
        }
        let s = &self.summary;
        if self.equal {
            out += &format!("no differences ({} instructions identical)\n", s.identical);
        } else {
            out += &format!(
                "{} computation{} differ{}: {} changed, {} added, {} removed instructions ({} identical)\n",
                s.computations_differing,
                if s.computations_differing == 1 { "" } else { "s" },
                if s.computations_differing == 1 { "s" } else { "" },
                s.changed,
                s.added,
                s.removed,
                s.identical
            );
        }
        out
    }
}

fn line(computation: &Computation, id: InstrId) -> String {
    let root = if computation.root() == Some(id) {
        "ROOT "
    } else {
        ""
    };
    format!("{root}{}", print_ir_instruction_line(computation, id))
}

fn module_changes(left: &Module, right: &Module, options: DiffOptions) -> Vec<FieldChange> {
    let mut changes = Vec::new();
    if !options.ignore_names && left.name != right.name {
        changes.push(FieldChange {
            field: "name".into(),
            left: left.name.clone(),
            right: right.name.clone(),
        });
    }
    let names: BTreeSet<&str> = left
        .attributes
        .iter()
        .chain(&right.attributes)
        .map(|a| &*a.name)
        .collect();
    for name in names {
        let (l, r) = (left.attribute(name), right.attribute(name));
        if l != r {
            changes.push(FieldChange {
                field: name.to_string(),
                left: l.unwrap_or("(none)").to_string(),
                right: r.unwrap_or("(none)").to_string(),
            });
        }
    }
    changes
}

/// Pairs of (left, right) computations, in the left module's order of discovery.
fn pair_computations(
    left: &Module,
    right: &Module,
    options: DiffOptions,
) -> Vec<(ComputationId, ComputationId)> {
    let mut pairing = Pairing::default();
    if !options.ignore_names {
        let right_names = right.computations_by_name();
        for l in left.computation_ids() {
            if let Some(&r) = right_names.get(left.computation(l).name.as_str()) {
                pairing.add(l, r);
            }
        }
    }
    pairing.add(left.entry, right.entry);
    // Called computations pair through their callers, in call order.
    let mut next = 0;
    while next < pairing.pairs.len() {
        let (l, r) = pairing.pairs[next];
        next += 1;
        let called = |module: &Module, c: ComputationId| -> Vec<ComputationId> {
            let computation = module.computation(c);
            computation
                .order()
                .iter()
                .flat_map(|&id| computation.instruction(id).called.clone())
                .collect()
        };
        for (cl, cr) in called(left, l).into_iter().zip(called(right, r)) {
            pairing.add(cl, cr);
        }
    }
    if options.ignore_names {
        // Whatever is left pairs in order with the first right computation of the same size
        // and root not paired yet: the right ones are queued by that signature, once.
        let signature = |module: &Module, c: ComputationId| {
            let computation = module.computation(c);
            let root = computation
                .root()
                .map(|id| computation.instruction(id).opcode.name().to_string());
            (computation.len(), root)
        };
        let mut by_signature: HashMap<_, VecDeque<ComputationId>> = HashMap::new();
        for r in right.computation_ids() {
            by_signature
                .entry(signature(right, r))
                .or_default()
                .push_back(r);
        }
        for l in left.computation_ids() {
            let Some(queue) = by_signature.get_mut(&signature(left, l)) else {
                continue;
            };
            while queue
                .front()
                .is_some_and(|r| pairing.right_paired.contains(r))
            {
                queue.pop_front();
            }
            if let Some(&r) = queue.front() {
                pairing.add(l, r);
            }
        }
    }
    pairing.pairs
}

/// Computations paired so far, each at most once on either side.
#[derive(Default)]
struct Pairing {
    left_to_right: HashMap<ComputationId, ComputationId>,
    right_paired: BTreeSet<ComputationId>,
    pairs: Vec<(ComputationId, ComputationId)>,
}

impl Pairing {
    /// Pairs `l` with `r` unless either is paired already.
    fn add(&mut self, l: ComputationId, r: ComputationId) {
        if self.left_to_right.contains_key(&l) || self.right_paired.contains(&r) {
            return;
        }
        self.left_to_right.insert(l, r);
        self.right_paired.insert(r);
        self.pairs.push((l, r));
    }
}

struct Context<'a> {
    left: &'a Module,
    right: &'a Module,
    right_to_left: &'a HashMap<ComputationId, ComputationId>,
    options: DiffOptions,
}

/// What step 2 compares besides operands: opcode, shape, payload, attributes, callees.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    opcode: String,
    shape: String,
    payload: String,
    attributes: Vec<(String, String)>,
    called: Vec<Option<ComputationId>>,
    operands: Vec<InstrId>,
}

impl Context<'_> {
    /// Attributes compared: not those naming computations (compared through `called`), nor,
    /// without names, `control-predecessors`.
    fn attributes(&self, instruction: &Instruction) -> Vec<(String, String)> {
        let mut attributes: Vec<(String, String)> = instruction
            .attributes
            .iter()
            .filter(|a| !calls_computations(&a.name))
            .filter(|a| !(self.options.ignore_names && &*a.name == "control-predecessors"))
            .map(|a| (a.name.to_string(), a.value.to_string()))
            .collect();
        attributes.sort();
        attributes
    }

    /// Callees of a right-hand instruction as left computation ids (`None` if unpaired).
    fn called_right(&self, instruction: &Instruction) -> Vec<Option<ComputationId>> {
        instruction
            .called
            .iter()
            .map(|c| self.right_to_left.get(c).copied())
            .collect()
    }

    fn key(
        &self,
        computation: &Computation,
        id: InstrId,
        operands: Vec<InstrId>,
        right: bool,
    ) -> Key {
        let instruction = computation.instruction(id);
        Key {
            opcode: instruction.opcode.name().to_string(),
            shape: instruction.shape.to_string(),
            payload: payload(instruction),
            attributes: self
                .attributes(instruction)
                .into_iter()
                .filter(|(name, _)| name != "metadata")
                .collect(),
            called: if right {
                self.called_right(instruction)
            } else {
                instruction.called.iter().map(|&c| Some(c)).collect()
            },
            operands,
        }
    }

    fn diff_computation(&self, a: &Computation, b: &Computation) -> ComputationDiff {
        let matching = self.match_instructions(a, b);
        let position: HashMap<InstrId, usize> = a
            .order()
            .iter()
            .enumerate()
            .map(|(i, &id)| (id, i))
            .collect();
        let mut changes = Vec::new();
        let mut identical = 0;
        let mut next_left = 0;
        let flush = |until: usize, next_left: &mut usize, changes: &mut Vec<Change>| {
            while *next_left < until {
                let id = a.order()[*next_left];
                if !matching.left_to_right.contains_key(&id) {
                    changes.push(Change::Removed { left: line(a, id) });
                }
                *next_left += 1;
            }
        };
        for &r in b.order() {
            match matching.right_to_left.get(&r) {
                None => changes.push(Change::Added { right: line(b, r) }),
                Some(&l) => {
                    flush(position[&l], &mut next_left, &mut changes);
                    let fields = self.compare(a, l, b, r, &matching.right_to_left);
                    if fields.is_empty() {
                        identical += 1;
                    } else {
                        changes.push(Change::Changed {
                            left: line(a, l),
                            right: line(b, r),
                            fields,
                        });
                    }
                }
            }
        }
        flush(a.order().len(), &mut next_left, &mut changes);
        let renamed = !self.options.ignore_names && a.name != b.name;
        ComputationDiff {
            left: Some(a.name.to_string()),
            right: Some(
                if renamed || self.options.ignore_names && a.name != b.name {
                    b.name.to_string()
                } else {
                    a.name.to_string()
                },
            ),
            entry: a.is_entry,
            identical,
            changes,
        }
    }

    fn compare(
        &self,
        a: &Computation,
        l: InstrId,
        b: &Computation,
        r: InstrId,
        right_to_left: &HashMap<InstrId, InstrId>,
    ) -> Vec<FieldChange> {
        let (x, y) = (a.instruction(l), b.instruction(r));
        let mut fields = Vec::new();
        if !self.options.ignore_names {
            push_field(
                &mut fields,
                "name",
                x.name().to_string(),
                y.name().to_string(),
            );
        }
        push_field(
            &mut fields,
            "opcode",
            x.opcode.name().into(),
            y.opcode.name().into(),
        );
        push_field(
            &mut fields,
            "shape",
            x.shape.to_string(),
            y.shape.to_string(),
        );
        push_field(&mut fields, "payload", payload(x), payload(y));
        let names = |c: &Computation, ids: &[InstrId]| -> String {
            let names: Vec<&str> = ids.iter().map(|&id| c.instruction(id).name()).collect();
            format!("({})", names.join(", "))
        };
        let (left_operands, right_operands) = (a.operands(l), b.operands(r));
        let mapped: Vec<Option<InstrId>> = right_operands
            .iter()
            .map(|o| right_to_left.get(o).copied())
            .collect();
        if mapped.len() != left_operands.len() {
            fields.push(FieldChange {
                field: "operands".into(),
                left: names(a, &left_operands),
                right: names(b, &right_operands),
            });
        } else {
            // Only the slots whose operands do not correspond.
            for (slot, ((m, &ol), &or)) in mapped
                .iter()
                .zip(&left_operands)
                .zip(&right_operands)
                .enumerate()
            {
                if *m != Some(ol) {
                    fields.push(FieldChange {
                        field: format!("operand {slot}"),
                        left: a.instruction(ol).name().to_string(),
                        right: b.instruction(or).name().to_string(),
                    });
                }
            }
        }
        let text = |attributes: Vec<(String, String)>| -> String {
            let parts: Vec<String> = attributes
                .into_iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            format!("{{{}}}", parts.join(", "))
        };
        push_field(
            &mut fields,
            "attributes",
            text(self.attributes(x)),
            text(self.attributes(y)),
        );
        let left_called: Vec<Option<ComputationId>> = x.called.iter().map(|&c| Some(c)).collect();
        if left_called != self.called_right(y) {
            let names = |m: &Module, ids: &[ComputationId]| -> String {
                let names: Vec<&str> = ids
                    .iter()
                    .map(|&c| m.computation(c).name.as_str())
                    .collect();
                format!("({})", names.join(", "))
            };
            fields.push(FieldChange {
                field: "called".into(),
                left: names(self.left, &x.called),
                right: names(self.right, &y.called),
            });
        }
        push_field(
            &mut fields,
            "root",
            (a.root() == Some(l)).to_string(),
            (b.root() == Some(r)).to_string(),
        );
        fields
    }

    fn match_instructions(&self, a: &Computation, b: &Computation) -> Matching {
        let mut m = Matching::default();
        if !self.options.ignore_names {
            for &r in b.order() {
                if let Some(l) = a.find(b.instruction(r).name()) {
                    m.add(l, r);
                }
            }
        }
        loop {
            let before = m.left_to_right.len();
            // 2. Bottom-up, exactly.
            let mut index: HashMap<Key, VecDeque<InstrId>> = HashMap::new();
            for &l in a.order() {
                if !m.left_to_right.contains_key(&l) {
                    let key = self.key(a, l, a.operands(l), false);
                    index.entry(key).or_default().push_back(l);
                }
            }
            for &r in b.order() {
                if m.right_to_left.contains_key(&r) {
                    continue;
                }
                let Some(operands) = m.mapped(b.operands(r)) else {
                    continue;
                };
                let key = self.key(b, r, operands, true);
                if let Some(candidates) = index.get_mut(&key) {
                    while let Some(l) = candidates.pop_front() {
                        if m.add(l, r) {
                            break;
                        }
                    }
                }
            }
            // 3. Top-down from the root, slot by slot, the same opcode.
            if let (Some(l), Some(r)) = (a.root(), b.root()) {
                if a.instruction(l).opcode == b.instruction(r).opcode {
                    m.add(l, r);
                }
            }
            top_down(a, b, &mut m, |(ca, x), (cb, y)| {
                ca.instruction(x).opcode == cb.instruction(y).opcode
            });
            // 4. Bottom-up, loosely: opcode and operands (parameter numbers for parameters).
            let loose = |c: &Computation, id: InstrId, operands: Vec<InstrId>| {
                let instruction = c.instruction(id);
                let number = match instruction.payload {
                    Payload::Parameter(n) => Some(n),
                    _ => None,
                };
                (instruction.opcode.name().to_string(), number, operands)
            };
            let mut index: HashMap<_, VecDeque<InstrId>> = HashMap::new();
            for &l in a.order() {
                if !m.left_to_right.contains_key(&l) {
                    index
                        .entry(loose(a, l, a.operands(l)))
                        .or_default()
                        .push_back(l);
                }
            }
            for &r in b.order() {
                if m.right_to_left.contains_key(&r) {
                    continue;
                }
                let Some(operands) = m.mapped(b.operands(r)) else {
                    continue;
                };
                if let Some(candidates) = index.get_mut(&loose(b, r, operands)) {
                    while let Some(l) = candidates.pop_front() {
                        if m.add(l, r) {
                            break;
                        }
                    }
                }
            }
            if m.left_to_right.len() == before {
                // Last resort, only once nothing else matches: operands that changed opcode
                // in place (an `add` that became a `multiply`) keep their shape and arity.
                top_down(a, b, &mut m, |(ca, x), (cb, y)| {
                    ca.instruction(x).shape == cb.instruction(y).shape
                        && ca.operand_count(x) == cb.operand_count(y)
                });
                if m.left_to_right.len() == before {
                    return m;
                }
            }
        }
    }
}

/// Matches the operands of matched pairs slot by slot, users first, where `agree`.
fn top_down(
    a: &Computation,
    b: &Computation,
    m: &mut Matching,
    agree: impl Fn((&Computation, InstrId), (&Computation, InstrId)) -> bool,
) {
    for &r in b.order().iter().rev() {
        let Some(&l) = m.right_to_left.get(&r) else {
            continue;
        };
        for (ol, or) in a.operands(l).into_iter().zip(b.operands(r)) {
            if agree((a, ol), (b, or)) {
                m.add(ol, or);
            }
        }
    }
}

/// Records `field` when its two sides differ.
fn push_field(fields: &mut Vec<FieldChange>, field: &str, left: String, right: String) {
    if left != right {
        fields.push(FieldChange {
            field: field.to_string(),
            left,
            right,
        });
    }
}

fn payload(instruction: &Instruction) -> String {
    match &instruction.payload {
        Payload::None => String::new(),
        Payload::Parameter(n) => format!("parameter({n})"),
        Payload::Literal(text) => format!("constant({text})"),
    }
}

#[derive(Default)]
struct Matching {
    left_to_right: HashMap<InstrId, InstrId>,
    right_to_left: HashMap<InstrId, InstrId>,
}

impl Matching {
    /// Pairs `l` and `r` if neither is paired yet.
    fn add(&mut self, l: InstrId, r: InstrId) -> bool {
        if self.left_to_right.contains_key(&l) || self.right_to_left.contains_key(&r) {
            return false;
        }
        self.left_to_right.insert(l, r);
        self.right_to_left.insert(r, l);
        true
    }

    /// Right-hand operands as their left partners, if all are matched.
    fn mapped(&self, operands: Vec<InstrId>) -> Option<Vec<InstrId>> {
        operands
            .into_iter()
            .map(|o| self.right_to_left.get(&o).copied())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "HloModule m\n\nENTRY e {\n  a = f32[4]{0} parameter(0)\n  b = f32[4]{0} parameter(1)\n  s = f32[4]{0} subtract(b, a)\n  ROOT n = f32[4]{0} negate(s)\n}\n";

    fn parse(text: &str) -> Module {
        crate::parse_module(text).unwrap()
    }

    #[test]
    fn a_module_equals_itself_and_its_renaming() {
        let module = parse(MODULE);
        let diff = diff_modules(&module, &module, DiffOptions::default());
        assert!(diff.equal);
        assert_eq!(diff.summary.identical, 4);
        let renamed = parse(
            &MODULE
                .replace("s)", "x)")
                .replace("  s =", "  x =")
                .replace("HloModule m", "HloModule other"),
        );
        let strict = diff_modules(&module, &renamed, DiffOptions::default());
        assert!(!strict.equal);
        assert_eq!(strict.summary.changed, 1);
        let loose = diff_modules(&module, &renamed, DiffOptions { ignore_names: true });
        assert!(loose.equal, "{}", loose.to_text("a", "b"));
    }

    #[test]
    fn without_names_computations_nobody_calls_pair_by_size_and_root_in_order() {
        let left = parse(
            "HloModule m\n\n\
             a {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n\n\
             d {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n\n\
             b {\n  p = f32[] parameter(0)\n  q = f32[] parameter(1)\n  ROOT s = f32[] add(p, q)\n}\n\n\
             ENTRY e {\n  x = f32[] parameter(0)\n  ROOT c = f32[] call(x), to_apply=a\n}\n",
        );
        // `a2` pairs with `a` through the call; `a3`, the first in order with the same size
        // and root that is not paired yet, is left for `d`, and `b2` for `b`.
        let right = parse(
            "HloModule m\n\n\
             b2 {\n  p = f32[] parameter(0)\n  q = f32[] parameter(1)\n  ROOT s = f32[] add(p, q)\n}\n\n\
             a2 {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n\n\
             a3 {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n\n\
             ENTRY e {\n  x = f32[] parameter(0)\n  ROOT c = f32[] call(x), to_apply=a2\n}\n",
        );
        let loose = diff_modules(&left, &right, DiffOptions { ignore_names: true });
        assert!(loose.equal, "{}", loose.to_text("a", "b"));
        let pairs = pair_computations(&left, &right, DiffOptions { ignore_names: true });
        let name = |module: &Module, id: ComputationId| module.computation(id).name.to_string();
        let named: Vec<(String, String)> = pairs
            .iter()
            .map(|&(l, r)| (name(&left, l), name(&right, r)))
            .collect();
        let expected = [("e", "e"), ("a", "a2"), ("d", "a3"), ("b", "b2")];
        assert_eq!(named, expected.map(|(l, r)| (l.to_string(), r.to_string())));
        assert!(!diff_modules(&left, &right, DiffOptions::default()).equal);
    }

    #[test]
    fn swapped_operands_are_a_difference_of_slots() {
        let module = parse(MODULE);
        let swapped = parse(&MODULE.replace("subtract(b, a)", "subtract(a, b)"));
        let diff = diff_modules(&module, &swapped, DiffOptions { ignore_names: true });
        assert!(!diff.equal);
        let Change::Changed { fields, .. } = &diff.computations[0].changes[0] else {
            panic!("{:?}", diff.computations);
        };
        let names: Vec<&str> = fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(names, ["operand 0", "operand 1"]);
    }
}
