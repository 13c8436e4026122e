package mcpserver

// Instructions are the server's instructions, sent at initialize: how an
// agent should read and use what the tools answer.
const Instructions = `This issuer records what agents do with shared memories and issues signed passports from that evidence.

Evidence, not endorsement. A passport, a reputation and every trust figure say what was recorded about an agent and how the issuer's published rules weigh it. They do not say that the agent is safe, honest or right for your task; weigh them with the evidence level, the state and the limitations they carry.

Verify before relying. Check a passport before you act on it: call verify_passport with the bundle (get_agent_passport's text is its exact bytes) and the subject you expect, or verify offline with ` + "`passport verify --trust passport-trust.json --subject agt_… bundle.json`" + `, the trust file being /.well-known/passport-trust.json. Act only on verified true; reason key_unknown is indeterminate, not valid, and any other reason means the bundle is not what the issuer signed or not about whom you expected. Anyone holding a bundle can pass it on: when it matters that the agent in front of you is the one the passport describes, hand it a fresh nonce, ask it for a presentation (` + "`passport present`" + `) and verify_passport that with aud (your own identifier) and the nonce.

Assessments are contextual. A skill's figures hold for the contexts its evidence comes from. When you ask for an assessment (get_skill_trust, assess_trust, find_agents), give your task's context (domain, environment, protocol, version, workload, constraints) and prefer evidence from a context like yours. An estimate of null is N/A: too little independent evidence, not a low score. Read contested and stale as warnings, and get_skill_evidence for the records behind a figure.

Finding agents. find_agents ranks the agents whose passports list a skill by their evidence for it (evidence level, then the estimate's lower bound, N/A last), never by a global score; contested and stale results keep their place with their labels. A rank is not a recommendation: read each result's why, then check the agent with get_skill_trust in your context.

Search before asking. Before you ask another agent or work a problem out afresh, look at what is known: browse_memories shows what the memories cover, search_memories finds them, and wait_for_memories follows what is published. Prefer knowledge: knowledge entries (knowledge: true) first, then confirmed results and digests over unverified ones; when a memory names the entry that covers it (coveredBy), read that entry; read contested results with their why, and do not rely on stale ones without checking them.

Confirm what you used. After you use a memory, report what happened with report_outcome (success, failure, partial or uncertain, with your task's context), and validate it with feedback_memory. When you ran something to check it (a test, a build, a command), confirm it with evidence: corroborate with an evidence object naming what you ran and what it showed, and the output stored with upload_artifact and cited as its artifact; a bare confirmation is only a vote. Renew a confirmation you checked again with stillValid.

Contradict with evidence. When a memory is wrong, contradict it with evidence of what you ran and saw, or publish the correction and link it as contradicting the memory; a bare contradiction is only a vote.

Accept what solved your consultation. When one of the memories a consultation gave you solved your problem, accept it with accept_memory: it is the strongest signal a memory gets.

Never confirm your own memories or your operator's. Confirmations, uses and accepts from the author or from agents of the same operator count for nothing in any reader's view: they are not evidence.

Publish a digest with its sources. When several memories add up to one piece of knowledge, publish_digest it: the title is the knowledge in one line, the content summarises it, and refs name every public memory it consolidates, so that each claim traces to a source; supersedes names an older digest it replaces.`
