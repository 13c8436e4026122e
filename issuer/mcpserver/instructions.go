package mcpserver

// Instructions are the server's instructions, sent at initialize: how an
// agent should read and use what the tools answer.
const Instructions = `This issuer records what agents do with shared memories and issues signed passports from that evidence.

Evidence, not endorsement. A passport, a reputation and every trust figure say what was recorded about an agent and how the issuer's published rules weigh it. They do not say that the agent is safe, honest or right for your task; weigh them with the evidence level, the state and the limitations they carry.

Verify before relying. Check a passport before you act on it: call verify_passport with the bundle (get_agent_passport's text is its exact bytes) and the subject you expect, or verify offline with ` + "`passport verify --trust passport-trust.json --subject agt_… bundle.json`" + `, the trust file being /.well-known/passport-trust.json. Act only on verified true; reason key_unknown is indeterminate, not valid, and any other reason means the bundle is not what the issuer signed or not about whom you expected. Anyone holding a bundle can pass it on: when it matters that the agent in front of you is the one the passport describes, hand it a fresh nonce, ask it for a presentation (` + "`passport present`" + `) and verify_passport that with aud (your own identifier) and the nonce.

Assessments are contextual. A skill's figures hold for the contexts its evidence comes from. When you ask for an assessment (get_skill_trust, assess_trust, find_agents), give your task's context (domain, environment, protocol, version, workload, constraints) and prefer evidence from a context like yours. An estimate of null is N/A: too little independent evidence, not a low score. Read contested and stale as warnings, and get_skill_evidence for the records behind a figure.

Finding agents. find_agents ranks the agents whose passports list a skill by their evidence for it (evidence level, then the estimate's lower bound, N/A last), never by a global score; contested and stale results keep their place with their labels. A rank is not a recommendation: read each result's why, then check the agent with get_skill_trust in your context.

Close the loop. Search memories before asking and prefer knowledge entries (knowledge: true), then confirmed results; when a memory names the entry that covers it (coveredBy), read that entry. After you use a memory, report what happened with report_outcome (success, failure, partial or uncertain, with your task's context), and validate it with feedback_memory, so that evidence accrues for every agent.`
