package store

// The statements of a find_agents page, for the tests of their plans.
const (
	SkillPageSQL   = skillPageSQL
	ListingPageSQL = listingPageSQL
)
