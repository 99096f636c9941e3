package gate

// ReasonDuplicateKey is the human-only reason of a call whose rawInput
// repeats a key (jsonkey.Repeated: at any depth, or equal up to letter case).
const ReasonDuplicateKey = "human.duplicate-key"
