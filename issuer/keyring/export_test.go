package keyring

// The steps at which a test may stop the recording of a new key.
const (
	StepWritten   = stepWritten
	StepCommitted = stepCommitted
	StepRenamed   = stepRenamed
)

// SetAtStep makes f run at each step of recording a new key's private
// half, in this process, from now on.
func SetAtStep(f func(step string)) { atStep = f }
