//! Parameter validation errors.

/// A behaviour, limit or model parameter that cannot work, with its name and value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// NaN or infinite.
    #[error("`{name}` must be a finite number, got {value}")]
    NotFinite {
        /// Parameter name.
        name: &'static str,
        /// The rejected value.
        value: f32,
    },
    /// Below zero where only zero or more makes sense.
    #[error("`{name}` must not be negative, got {value}")]
    Negative {
        /// Parameter name.
        name: &'static str,
        /// The rejected value.
        value: f32,
    },
    /// Zero or below where a strictly positive value is needed (a time constant, a divisor).
    #[error("`{name}` must be greater than zero, got {value}")]
    NotPositive {
        /// Parameter name.
        name: &'static str,
        /// The rejected value.
        value: f32,
    },
    /// Two parameters that contradict each other, e.g. a slow radius inside the target radius.
    #[error("`{name}` ({value}) must be at least `{other}` ({other_value})")]
    Contradictory {
        /// Parameter that is too small.
        name: &'static str,
        /// Its value.
        value: f32,
        /// The parameter it must not be below.
        other: &'static str,
        /// That parameter's value.
        other_value: f32,
    },
    /// A value outside its allowed range.
    #[error("`{name}` must be {range}, got {value}")]
    OutOfRange {
        /// Parameter name.
        name: &'static str,
        /// The rejected value.
        value: f32,
        /// The allowed range, in words.
        range: &'static str,
    },
    /// A parameter that is not one number (a point, a vector, a list, a combination) and cannot
    /// work as given.
    #[error("`{name}` must be {expected}")]
    Invalid {
        /// Parameter name.
        name: &'static str,
        /// What it must be, in words ("a finite point", "a recipe of its own").
        expected: &'static str,
    },
    /// A count (of items, members, leaves) or an index (of a vertex, a node) outside what is
    /// allowed.
    #[error("`{name}` must be {expected}, got {count}")]
    Count {
        /// Parameter name.
        name: &'static str,
        /// The rejected count or index.
        count: usize,
        /// The allowed counts, in words.
        expected: &'static str,
    },
}

pub(crate) fn finite(name: &'static str, value: f32) -> Result<f32, ParamError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ParamError::NotFinite { name, value })
    }
}

pub(crate) fn non_negative(name: &'static str, value: f32) -> Result<f32, ParamError> {
    finite(name, value)?;
    if value < 0.0 {
        Err(ParamError::Negative { name, value })
    } else {
        Ok(value)
    }
}

pub(crate) fn positive(name: &'static str, value: f32) -> Result<f32, ParamError> {
    finite(name, value)?;
    if value > 0.0 {
        Ok(value)
    } else {
        Err(ParamError::NotPositive { name, value })
    }
}

/// `count` when it is at least 1, else [`ParamError::Count`] with `expected` in words.
pub(crate) fn at_least_one(
    name: &'static str,
    count: usize,
    expected: &'static str,
) -> Result<usize, ParamError> {
    if count == 0 {
        Err(ParamError::Count { name, count, expected })
    } else {
        Ok(count)
    }
}

pub(crate) fn at_least(
    name: &'static str,
    value: f32,
    other: &'static str,
    other_value: f32,
) -> Result<f32, ParamError> {
    if value < other_value {
        Err(ParamError::Contradictory { name, value, other, other_value })
    } else {
        Ok(value)
    }
}
