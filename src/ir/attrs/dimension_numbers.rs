//! The dimension numbers of `dot`, `gather` and `scatter`, printed as XLA prints their
//! attributes.
//!
//! Invariant: lists print in XLA's order, batching lists only when not empty.

use std::fmt;

use super::text::write_int_list;

/// `lhs_batch_dims`, `lhs_contracting_dims`, `rhs_batch_dims`, `rhs_contracting_dims`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDimensionNumbers {
    /// The left operand's batch dims, paired in order with `rhs_batch`.
    pub lhs_batch: Vec<i64>,
    /// The left operand's contracting dims, paired in order with `rhs_contracting`.
    pub lhs_contracting: Vec<i64>,
    /// The right operand's batch dims.
    pub rhs_batch: Vec<i64>,
    /// The right operand's contracting dims.
    pub rhs_contracting: Vec<i64>,
}

/// Prints the attributes as XLA does: batch dims only when non-empty, contracting dims
/// always, e.g. `lhs_contracting_dims={1}, rhs_contracting_dims={0}`.
impl fmt::Display for DotDimensionNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.lhs_batch.is_empty() {
            write_int_list(f, "lhs_batch_dims", &self.lhs_batch)?;
            f.write_str(", ")?;
        }
        write_int_list(f, "lhs_contracting_dims", &self.lhs_contracting)?;
        if !self.rhs_batch.is_empty() {
            f.write_str(", ")?;
            write_int_list(f, "rhs_batch_dims", &self.rhs_batch)?;
        }
        f.write_str(", ")?;
        write_int_list(f, "rhs_contracting_dims", &self.rhs_contracting)
    }
}

/// The dimension numbers of `gather`; `slice_sizes` is a separate attribute.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GatherDimensionNumbers {
    /// The output dims that index within each gathered slice.
    pub offset_dims: Vec<i64>,
    /// The operand dims of slice size 1 that the output leaves out.
    pub collapsed_slice_dims: Vec<i64>,
    /// For each entry of an index vector, the operand dim it starts the slice in.
    pub start_index_map: Vec<i64>,
    /// The operand dims that are batch dims.
    pub operand_batching_dims: Vec<i64>,
    /// The start indices' batch dims, paired in order with `operand_batching_dims`.
    pub start_indices_batching_dims: Vec<i64>,
    /// The dim of the start indices that holds each index vector.
    pub index_vector_dim: i64,
}

/// Prints the attributes in XLA's order; the batching dims only when non-empty.
impl fmt::Display for GatherDimensionNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_int_list(f, "offset_dims", &self.offset_dims)?;
        f.write_str(", ")?;
        write_int_list(f, "collapsed_slice_dims", &self.collapsed_slice_dims)?;
        f.write_str(", ")?;
        write_int_list(f, "start_index_map", &self.start_index_map)?;
        if !self.operand_batching_dims.is_empty() {
            f.write_str(", ")?;
            write_int_list(f, "operand_batching_dims", &self.operand_batching_dims)?;
        }
        if !self.start_indices_batching_dims.is_empty() {
            f.write_str(", ")?;
            write_int_list(
                f,
                "start_indices_batching_dims",
                &self.start_indices_batching_dims,
            )?;
        }
        write!(f, ", index_vector_dim={}", self.index_vector_dim)
    }
}

/// The dimension numbers of `scatter`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScatterDimensionNumbers {
    /// The update dims that index within each window written.
    pub update_window_dims: Vec<i64>,
    /// The operand dims of window size 1 that the updates leave out.
    pub inserted_window_dims: Vec<i64>,
    /// For each entry of an index vector, the operand dim it starts the window in.
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// The operand dims that are batch dims.
    pub input_batching_dims: Vec<i64>,
    /// The scatter indices' batch dims, paired in order with `input_batching_dims`.
    pub scatter_indices_batching_dims: Vec<i64>,
    /// The dim of the scatter indices that holds each index vector.
    pub index_vector_dim: i64,
}

/// Prints the attributes in XLA's order; the batching dims only when non-empty.
impl fmt::Display for ScatterDimensionNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_int_list(f, "update_window_dims", &self.update_window_dims)?;
        f.write_str(", ")?;
        write_int_list(f, "inserted_window_dims", &self.inserted_window_dims)?;
        f.write_str(", ")?;
        write_int_list(
            f,
            "scatter_dims_to_operand_dims",
            &self.scatter_dims_to_operand_dims,
        )?;
        if !self.input_batching_dims.is_empty() {
            f.write_str(", ")?;
            write_int_list(f, "input_batching_dims", &self.input_batching_dims)?;
        }
        if !self.scatter_indices_batching_dims.is_empty() {
            f.write_str(", ")?;
            write_int_list(
                f,
                "scatter_indices_batching_dims",
                &self.scatter_indices_batching_dims,
            )?;
        }
        write!(f, ", index_vector_dim={}", self.index_vector_dim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimension_number_attributes_print_as_xla() {
        let dot = DotDimensionNumbers {
            lhs_batch: vec![0],
            lhs_contracting: vec![2],
            rhs_batch: vec![0],
            rhs_contracting: vec![1],
        };
        assert_eq!(
            dot.to_string(),
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}"
        );
        let outer = DotDimensionNumbers::default();
        assert_eq!(
            outer.to_string(),
            "lhs_contracting_dims={}, rhs_contracting_dims={}"
        );
        let gather = GatherDimensionNumbers {
            offset_dims: vec![],
            collapsed_slice_dims: vec![1],
            start_index_map: vec![1],
            operand_batching_dims: vec![0],
            start_indices_batching_dims: vec![0],
            index_vector_dim: 2,
        };
        assert_eq!(
            gather.to_string(),
            "offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2"
        );
        let scatter = ScatterDimensionNumbers {
            update_window_dims: vec![1],
            inserted_window_dims: vec![0],
            scatter_dims_to_operand_dims: vec![0],
            index_vector_dim: 1,
            ..Default::default()
        };
        assert_eq!(
            scatter.to_string(),
            "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1"
        );
    }
}
