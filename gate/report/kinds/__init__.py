"""Each built-in suite kind's report view, one module per kind named after it (moving into the kind's folder,
`gate/kinds/<kind>/`): `build(suite, worst_items)` turns the judged suite into the escaped, formatted tables its
template shows; the kind registers it as its `Kind.view`. A kind without one gets the generic view of
`gate.report.views`.
"""
