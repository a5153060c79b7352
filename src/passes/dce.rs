//! `dce`: removes instructions whose value nothing uses, then computations nothing calls,
//! following XLA's `HloDCE`.
//!
//! An instruction stays when it is a computation's root, a parameter, has a side effect, or
//! takes part in a control dependency (`control-predecessors`), and so does everything such
//! an instruction uses. Side effects are XLA's `HasSideEffect`: send/recv and their `-done`,
//! infeed, outfeed, the `-start`/`-done` halves of asynchronous collectives,
//! collective-broadcast, a custom-call with `custom_call_has_side_effect=true`, a collective
//! with `constrain_layout=true` or a `channel_id` (XLA exempts SPMD modules, which the text
//! does not say, so they are kept), and any instruction calling a computation with a side
//! effect. Also kept, more cautiously than XLA: `rng`, `rng-get-and-update-state`, and
//! opcodes this crate does not know. A computation stays when the entry reaches it through
//! called computations or its name appears in a kept instruction's attributes.
//!
//! Before:
//!
//! ```text
//! ENTRY e {
//!   %p = f32[4]{0} parameter(0)
//!   %dead = f32[4]{0} negate(%p)
//!   %token = token[] after-all()
//!   %out = token[] outfeed(%p, %token), outfeed_shape=f32[4]{0}
//!   ROOT %r = f32[4]{0} add(%p, %p)
//! }
//! ```
//!
//! After (the outfeed has a side effect, so it and the token it uses stay):
//!
//! ```text
//! ENTRY e {
//!   %p = f32[4]{0} parameter(0)
//!   %token = token[] after-all()
//!   %out = token[] outfeed(%p, %token), outfeed_shape=f32[4]{0}
//!   ROOT %r = f32[4]{0} add(%p, %p)
//! }
//! ```

use crate::ir::module::{Computation, InstrId, Instruction};
use crate::ir::{Module, Opcode};
use crate::pass::{Changed, Pass, PassContext, PassError};

/// The pass's name in `--passes`.
pub const NAME: &str = "dce";
/// What `hlo-layout passes` says the pass does.
pub const DESCRIPTION: &str =
    "Removes instructions nothing uses and computations nothing calls, keeping side effects.";

/// The `dce` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn run(&mut self, module: &mut Module, cx: &mut PassContext) -> Result<Changed, PassError> {
        let (instructions, computations) =
            (module.instruction_count(), module.computations().len());
        let effects = SideEffects::of(module);
        let mut changed = Changed::NO;
        for id in module.computation_ids().collect::<Vec<_>>() {
            changed |= remove_dead_instructions(module.computation_mut(id), &effects)?;
        }
        changed |= remove_dead_computations(module);
        let removed = |before: usize, after: usize| before.saturating_sub(after) as u64;
        cx.count(
            "instructions removed",
            removed(instructions, module.instruction_count()),
        );
        cx.count(
            "computations removed",
            removed(computations, module.computations().len()),
        );
        Ok(changed)
    }
}

/// Whether an instruction's own opcode and attributes give it a side effect (XLA's
/// `HasSideEffectNoRecurse`, with the cautious additions the module doc lists).
pub fn has_side_effect_no_recurse(instruction: &Instruction) -> bool {
    let flag = |name: &str| instruction.attribute(name) == Some("true");
    match instruction.opcode {
        Opcode::Send
        | Opcode::SendDone
        | Opcode::Recv
        | Opcode::RecvDone
        | Opcode::Infeed
        | Opcode::Outfeed
        | Opcode::AllReduceStart
        | Opcode::AllReduceDone
        | Opcode::AllGatherStart
        | Opcode::AllGatherDone
        | Opcode::CollectiveBroadcast
        | Opcode::CollectivePermuteStart
        | Opcode::CollectivePermuteDone
        | Opcode::Rng
        | Opcode::RngGetAndUpdateState
        | Opcode::Unknown(_) => true,
        Opcode::AllToAll | Opcode::AllGather | Opcode::AllReduce | Opcode::ReduceScatter => {
            flag("constrain_layout") || instruction.attribute("channel_id").is_some()
        }
        Opcode::CollectivePermute => instruction.attribute("channel_id").is_some(),
        Opcode::CustomCall => flag("custom_call_has_side_effect"),
        _ => false,
    }
}

/// Which computations have a side effect, directly or through what they call.
struct SideEffects {
    computations: Vec<bool>,
}

impl SideEffects {
    fn of(module: &Module) -> SideEffects {
        let count = module.computations().len();
        // 0 unknown, 1 in progress, 2 done; a call cycle (invalid HLO) counts as an effect.
        let mut state = vec![0u8; count];
        let mut effect = vec![false; count];
        for start in 0..count {
            let mut stack = vec![(start, false)];
            while let Some((index, expanded)) = stack.pop() {
                if expanded {
                    let computation = &module.computations()[index];
                    effect[index] = computation.order().iter().any(|&id| {
                        let instruction = computation.instruction(id);
                        has_side_effect_no_recurse(instruction)
                            || instruction.called.iter().any(|c| {
                                effect.get(c.0 as usize).copied().unwrap_or(true)
                                    || state.get(c.0 as usize) != Some(&2)
                            })
                    });
                    state[index] = 2;
                    continue;
                }
                if state[index] != 0 {
                    continue;
                }
                state[index] = 1;
                stack.push((index, true));
                let computation = &module.computations()[index];
                for &id in computation.order() {
                    for called in &computation.instruction(id).called {
                        if state.get(called.0 as usize) == Some(&0) {
                            stack.push((called.0 as usize, false));
                        }
                    }
                }
            }
        }
        SideEffects {
            computations: effect,
        }
    }

    fn instruction(&self, instruction: &Instruction) -> bool {
        has_side_effect_no_recurse(instruction)
            || instruction
                .called
                .iter()
                .any(|c| self.computations.get(c.0 as usize).copied().unwrap_or(true))
    }
}

fn remove_dead_instructions(
    computation: &mut Computation,
    effects: &SideEffects,
) -> Result<Changed, PassError> {
    let control = super::control::control_dependent(computation);
    let mut live = vec![
        false;
        computation
            .graph()
            .node_indices()
            .map(|n| n.index() + 1)
            .max()
            .unwrap_or(0)
    ];
    let mut stack: Vec<InstrId> = computation.root().into_iter().collect();
    for &id in computation.order() {
        let instruction = computation.instruction(id);
        if instruction.opcode == Opcode::Parameter
            || super::control::is_marked(&control, id)
            || effects.instruction(instruction)
        {
            stack.push(id);
        }
    }
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut live[id.index()], true) {
            continue;
        }
        stack.extend(computation.operands(id));
    }
    // Dead instructions have only dead users, so removing users first (reverse print
    // order, which is def-before-use) always succeeds; the loop covers any other order.
    let mut dead: Vec<InstrId> = computation
        .order()
        .iter()
        .rev()
        .copied()
        .filter(|id| !live[id.index()])
        .collect();
    let changed = Changed(!dead.is_empty());
    while !dead.is_empty() {
        let before = dead.len();
        let mut blocked = Vec::new();
        for id in dead {
            if computation.has_users(id) {
                blocked.push(id);
            } else {
                computation.remove(id)?;
            }
        }
        if blocked.len() == before {
            return Err(PassError::message(format!(
                "dead instructions in `{}` use each other in a cycle",
                computation.name
            )));
        }
        dead = blocked;
    }
    Ok(changed)
}

/// Removes computations the entry does not reach through called computations, or through
/// a name in a kept instruction's attribute text (an attribute the lowering does not know
/// as a call, which printing would otherwise leave dangling).
fn remove_dead_computations(module: &mut Module) -> Changed {
    let by_calls = reach(module, false);
    if by_calls.iter().all(|&r| r) {
        return Changed::NO;
    }
    // Scanning attribute text costs a pass over it, so only when something looks dead.
    let reached = reach(module, true);
    if reached.iter().all(|&r| r) {
        return Changed::NO;
    }
    // Every callee of a kept computation is kept, so no call is dropped.
    module.retain_computations(|id, _| reached[id.0 as usize]);
    Changed::YES
}

/// Computations reachable from the entry through `called`, and with `by_name` also
/// through computation names appearing as words in attribute text.
fn reach(module: &Module, by_name: bool) -> Vec<bool> {
    let count = module.computations().len();
    let names: std::collections::HashMap<&str, usize> = if by_name {
        module
            .computations()
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.as_str(), i))
            .collect()
    } else {
        Default::default()
    };
    let is_name_byte = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
    let mut reached = vec![false; count];
    let mut stack = vec![module.entry.0 as usize];
    while let Some(index) = stack.pop() {
        if index >= count || std::mem::replace(&mut reached[index], true) {
            continue;
        }
        let computation = &module.computations()[index];
        for &id in computation.order() {
            let instruction = computation.instruction(id);
            stack.extend(instruction.called.iter().map(|c| c.0 as usize));
            if !by_name {
                continue;
            }
            for attribute in &instruction.attributes {
                stack.extend(
                    attribute
                        .value
                        .split(|c: char| !c.is_ascii() || !is_name_byte(c as u8))
                        .filter_map(|word| names.get(word).copied()),
                );
            }
        }
    }
    reached
}
