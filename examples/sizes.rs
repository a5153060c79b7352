use hlo_layout::syntax::ast::*;
fn main() {
    println!("Shape {} Instruction {} Operand {} Term {} Attribute {} Computation {} Word {} Name {} List {} Layout {}",
        std::mem::size_of::<Shape>(), std::mem::size_of::<Instruction>(), std::mem::size_of::<Operand>(),
        std::mem::size_of::<Term>(), std::mem::size_of::<Attribute>(), std::mem::size_of::<Computation>(),
        std::mem::size_of::<Word>(), std::mem::size_of::<Name>(), std::mem::size_of::<List>(), std::mem::size_of::<Layout>());
}
