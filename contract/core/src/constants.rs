//! The fixed numbers and strings of the core contract, in one place so that
//! the serializer, the call flow and the tests cannot drift apart.

/// Code points a result content may hold, the truncation marker included.
pub const OUTPUT_CAP: usize = 4096;
/// Appended to a truncated content: a newline then 23 characters.
pub const TRUNCATION_MARKER: &str = "\n[Tool output truncated]";
/// Code points of [`TRUNCATION_MARKER`].
pub const MARKER_CODE_POINTS: usize = 24;
/// Code points kept before the marker when a content is truncated.
pub const TRUNCATED_PREFIX: usize = OUTPUT_CAP - MARKER_CODE_POINTS;
/// Containers deeper than this truncate; the root value is depth 0.
pub const MAX_DEPTH: usize = 32;
/// Values visited over the whole output.
pub const MAX_NODES: usize = 128;
/// Own properties or array slots visited over the whole output.
pub const MAX_ENTRIES: usize = 256;
/// Code points read from keys and string values over the whole output.
pub const MAX_STRING_CHARS: usize = 4096;
/// A BigInt is written only when its magnitude is below 2^this.
pub const MAX_BIGINT_BITS: u64 = 4096;

/// Codes of the errors that reject a call or a registration.
pub mod contract_code {
    pub const INVALID_TOOL_DEFINITION: &str = "INVALID_TOOL_DEFINITION";
    pub const INVALID_TOOL_BATCH: &str = "INVALID_TOOL_BATCH";
    pub const DUPLICATE_TOOL_NAME: &str = "DUPLICATE_TOOL_NAME";
    pub const INVALID_TOOL_CALL: &str = "INVALID_TOOL_CALL";
}

/// Code carried by a genuine non-recoverable tool error.
pub const NON_RECOVERABLE_CODE: &str = "NON_RECOVERABLE_TOOL_ERROR";

/// The `role` of every result message.
pub const RESULT_ROLE: &str = "toolResult";
/// Prefix of every result message id.
pub const RESULT_ID_PREFIX: &str = "tool-result-";

/// Markers written in place of values that have no JSON form.
pub mod marker {
    pub const UNDEFINED: &str = "[Undefined]";
    pub const SYMBOL: &str = "[Symbol]";
    pub const FUNCTION: &str = "[Function]";
    pub const CIRCULAR: &str = "[Circular]";
    pub const EMPTY: &str = "[Empty]";
    pub const ACCESSOR: &str = "[Accessor omitted]";
}

/// Fixed messages of result errors.
pub mod message {
    pub const VALIDATION_FAILED: &str = "Tool validation failed";
    pub const VALIDATION_NOT_SYNC: &str = "Tool validation must return synchronously";
    pub const DECISION_NOT_OBJECT: &str = "Tool validation must return a decision object";
    pub const DECISION_OK_NOT_BOOLEAN: &str = "Tool validation ok must be a boolean";
    pub const DECISION_REJECT_WITHOUT_ERROR: &str =
        "A rejected Tool validation must include a non-empty error";
    pub const DECISION_INVALID: &str = "Tool validation returned an invalid decision";
    pub const EXECUTION_FAILED: &str = "Tool execution failed";
    pub const SERIALIZATION_FAILED: &str = "Tool output could not be serialized safely";
    /// The `TypeError` the serializer throws for an array whose prototype it
    /// refuses; its message becomes the result's (the course's `tool.ts`).
    pub const OUTPUT_ARRAY_PROTOTYPE: &str = "Tool output arrays must use a plain prototype";
    /// The same for any other container.
    pub const OUTPUT_OBJECT_PROTOTYPE: &str =
        "Tool output objects must be plain or have a null prototype";
}
