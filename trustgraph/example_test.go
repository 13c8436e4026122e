package trustgraph_test

import (
	"fmt"
	"strings"

	"github.com/remnant/passportkit/trustgraph"
)

// A reader who trusts alice sees bob, whom alice vouches for, and carol two
// hops away; the clique of fresh keys praising one another gets nothing.
func ExamplePropagate() {
	edges, err := trustgraph.ReadEdges(strings.NewReader(`source,target,weight
alice,bob,1
bob,carol,1
fresh1,fresh2,10
fresh2,fresh1,10
`))
	if err != nil {
		panic(err)
	}
	g, err := trustgraph.NewGraph(edges)
	if err != nil {
		panic(err)
	}
	res, err := trustgraph.Propagate(g, []string{"alice", "dave"}, trustgraph.PropagateOptions{})
	if err != nil {
		panic(err)
	}
	for _, s := range res.Scores {
		fmt.Printf("%-6s %.5f\n", s.ID, s.Score)
	}
	fmt.Printf("undistributed %.5f, not in the graph %v\n", res.Undistributed, res.UnknownTrustSet)
	// Output:
	// alice  0.07500
	// dave   0.07500
	// bob    0.06375
	// carol  0.05419
	// undistributed 0.73206, not in the graph [dave]
}

// A contradiction rebutted by a heavier author leaves the post standing; a
// contradiction by a fresh key is ignored.
func ExampleGrounded() {
	g, err := trustgraph.ParseArgumentGraph([]byte(`{"root":"post",
	 "arguments":[{"id":"post","author":"alice","weight":0.04},{"id":"c1","author":"bob","weight":0.05},
	              {"id":"r1","author":"carol","weight":0.06},{"id":"c2","author":"fresh","weight":0.0001}],
	 "attacks":[{"from":"c1","to":"post"},{"from":"r1","to":"c1"},{"from":"c2","to":"post"}]}`))
	if err != nil {
		panic(err)
	}
	l, err := trustgraph.Grounded(g, trustgraph.GroundedOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(l.RootLabel, l.Why.Code)
	fmt.Println(l.Why.Text)
	// Output:
	// IN rebutted
	// stands: 1 contradiction rebutted; 1 contradiction ignored (attacker lighter than the author)
}
