package passport

// SkillPassport is the assessment of one skill: how well evidenced the
// subject is for it, with an interval when there is enough evidence.
type SkillPassport struct {
	Skill         string `json:"skill"`
	State         string `json:"state"`
	Contested     bool   `json:"contested"`
	Stale         bool   `json:"stale"`
	Assessment    string `json:"assessment"`
	EvidenceLevel string `json:"evidenceLevel"`
}

func (s *SkillPassport) validate() error {
	if s.Skill == "" {
		return errorf(ReasonFieldMissing, "skill is missing")
	}
	return nil
}
