package web

import "github.com/remnant/passportkit/passport"

// AssessmentWords is how the pages write an assessment label.
func AssessmentWords(l passport.AssessmentLabel) string { return word(assessmentWords, l) }
