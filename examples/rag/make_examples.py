"""Generate the RAG example: two retrieval-augmented QA systems answering questions about a handbook.

    python examples/rag/make_examples.py      # rewrites the three files below, byte for byte

Writes, next to this script:

    documents.json     the corpus: 29 passages from the 7 documents of the (fictional) Northwind Cloud
                       internal handbook, [{"id": "billing-2", "document": "Billing", "text": "..."}]
    baseline.jsonl     the baseline system's answer to each of the 34 queries, one sample per line
    enhanced.jsonl     the enhanced system's answer to the same 34 queries, in the same order

Every sample has the seed's test-sample fields plus ids:

    id, system, query, expected_answer, actual_answer, retrieved_ids, retrieved_contexts,
    ground_truth_ids, ground_truth_contexts, relevance_scores, [ground_truth_relevance],
    latency, prompt_tokens, completion_tokens

`retrieved_contexts` are the texts of `retrieved_ids` (5 passages, in rank order) and
`ground_truth_contexts` the texts of `ground_truth_ids`. `ground_truth_relevance` (given for five
queries) holds graded judgments aligned with `ground_truth_ids`: 2 = highly relevant, 1 = partly
relevant. Each query has 1-3 relevant passages; q10 and q34 need passages from two documents, and
q24 is answered by no passage (`ground_truth_ids: []`).

The two systems (illustrative, not real model output):

    baseline   BM25 retrieval and a small model. The relevant passage is often ranked 2nd-5th or
               missed; answers are short, sometimes vague or partly unsupported by the contexts.
               Latency 1.2-2.6 s with a tail.
    enhanced   hybrid retrieval + a cross-encoder reranker and a better prompt. The relevant
               passage is mostly at rank 1; answers are grounded in the passages and close to the
               expected answers. Latency 0.7-1.6 s.

The enhanced system is WORSE than the baseline on three queries (regressions the comparison must
show; the baseline ranks the relevant passage first on all three):

    q02  "Is an annual subscription still refundable after two months?"  The reranker prefers the
         Billing passages about annual cycles and pro-rata charges (refunds-2 drops to rank 3) and the
         answer wrongly promises a pro-rata refund.
    q17  "What happens if nobody acknowledges a page?"  The reranker puts the Security passage about
         paging the incident commander first (oncall-2 drops to rank 2) and the answer follows it.
    q33  "How long do we keep logs from a security incident?"  Hybrid retrieval goes to the Data
         Retention document (ordinary logs: 90 days) and misses security-5 altogether; the answer
         says 90 days instead of one year.

How the retrieved lists are made: for each query and system the script states at which rank each
relevant passage was retrieved (`None` = not in the top 5) and, for the regressions, which wrong
passages the system put first (`lead`). The remaining slots are filled with distractors: for the
baseline the passages with the highest BM25 score for the query (a real Okapi BM25 over the
corpus below), for the enhanced system the same BM25 score plus a bonus for passages from the
document of its rank-1 passage (a reranker keeps neighbouring passages together). Ties (mostly
passages sharing no term with the query) are broken in a random order seeded per query. Relevant
passages that were missed are never used as filler.

`relevance_scores`, `latency` and the token counts are synthetic but deterministic: each sample
draws them from a random generator seeded with its own (system, query id) key. Token counts are an
approximation (1.25 tokens per word or punctuation mark) of the prompt (a fixed system prompt, the
query and the five passages) and of the answer.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
K = 5  # passages retrieved per query

# --------------------------------------------------------------------------------------------------
# The corpus: the Northwind Cloud handbook, 7 documents, 3-5 passages each.
# --------------------------------------------------------------------------------------------------

DOCUMENTS: dict[str, list[tuple[str, str]]] = {
    "Refunds": [
        (
            "refunds-1",
            "Customers on monthly plans can request a full refund within 14 days of their first "
            "payment. After 14 days, monthly plans are not refundable, but the customer can cancel to stop "
            "the next renewal.",
        ),
        (
            "refunds-2",
            "Annual plans can be refunded pro rata within the first 60 days, minus a 10% "
            "administration fee. After 60 days, annual plans are non-refundable.",
        ),
        (
            "refunds-3",
            "Refunds are issued to the original payment method and normally arrive within 5 to 10 "
            "business days. Support agents can approve refunds up to $500; larger refunds need approval "
            "from the Finance team.",
        ),
        (
            "refunds-4",
            "Usage-based charges, such as overage fees for compute and storage, are never refunded. "
            "Service credits from SLA breaches are applied to the next invoice instead of being paid out "
            "as refunds.",
        ),
    ],
    "Service Level Agreement": [
        (
            "sla-1",
            "Northwind Cloud guarantees 99.9% monthly uptime for the Standard tier and 99.95% for the "
            "Enterprise tier. Uptime is measured per region by our external probes, in one-minute intervals.",
        ),
        (
            "sla-2",
            "If monthly uptime falls below the guarantee, customers receive service credits: 10% of "
            "the monthly fee below 99.9%, 25% below 99.0%, and 50% below 95.0%.",
        ),
        (
            "sla-3",
            "Customers must claim service credits within 30 days of the end of the affected month by "
            "opening a support ticket. Credits are capped at 50% of the monthly fee.",
        ),
        (
            "sla-4",
            "Scheduled maintenance announced at least 72 hours in advance does not count as downtime, "
            "and neither do outages caused by the customer's own configuration.",
        ),
    ],
    "Data Retention": [
        (
            "retention-1",
            "Customer data is kept for as long as the account is active. After an account is "
            "closed, its data is retained for 30 days so that it can be restored, and then permanently "
            "deleted.",
        ),
        (
            "retention-2",
            "Backups are encrypted and kept for 35 days on a rolling basis. Deleted data can "
            "therefore persist in backups for up to 35 days after deletion.",
        ),
        (
            "retention-3",
            "Application and access logs are retained for 90 days. Billing records are kept for "
            "7 years to meet tax and audit requirements.",
        ),
        (
            "retention-4",
            "Customers can export all of their data at any time from the console. Requests for "
            "immediate deletion under GDPR are completed within 30 days.",
        ),
    ],
    "On-Call": [
        (
            "oncall-1",
            "Every engineering team runs a weekly on-call rotation that hands over on Mondays at "
            "10:00 UTC. Each rotation has a primary and a secondary engineer.",
        ),
        (
            "oncall-2",
            "The primary on-call engineer must acknowledge a page within 5 minutes. If the page is "
            "not acknowledged within 15 minutes, it escalates to the secondary engineer and then to the "
            "engineering manager.",
        ),
        (
            "oncall-3",
            "On-call engineers receive a stipend of $300 per week, and one day of time off after "
            "any week with more than two night-time pages.",
        ),
        (
            "oncall-4",
            "After every SEV1 or SEV2 incident, the on-call engineer writes a blameless postmortem "
            "within 5 business days.",
        ),
    ],
    "Security Incidents": [
        (
            "security-1",
            "Anyone who suspects a security incident must report it immediately in the "
            "#security-incident Slack channel or by calling the security hotline. Do not try to "
            "investigate on your own first.",
        ),
        (
            "security-2",
            "Security incidents are classified from SEV1 (an active breach of customer data) to "
            "SEV4 (a minor policy violation). A SEV1 requires the incident commander to be paged at once, "
            "at any hour.",
        ),
        (
            "security-3",
            "If customer personal data is affected, the Legal team notifies the affected "
            "customers and the regulator within 72 hours of confirming the breach.",
        ),
        (
            "security-4",
            "Compromised credentials must be revoked and rotated immediately. An affected laptop "
            "is isolated from the network but not powered off, so that forensic evidence is preserved.",
        ),
        (
            "security-5",
            "Evidence and logs collected during a security incident are kept for one year after "
            "the incident is closed, separately from normal log retention.",
        ),
    ],
    "API Rate Limits": [
        (
            "ratelimits-1",
            "The public API allows 100 requests per second per API key on the Standard tier and "
            "1,000 requests per second on the Enterprise tier.",
        ),
        (
            "ratelimits-2",
            "When a client exceeds its limit, the API returns HTTP 429 Too Many Requests with a "
            "Retry-After header giving the number of seconds to wait.",
        ),
        (
            "ratelimits-3",
            "Clients should retry with exponential backoff and jitter. Keys that keep exceeding "
            "their limit for more than 10 minutes are temporarily blocked for one hour.",
        ),
        (
            "ratelimits-4",
            "Enterprise customers can request a higher limit through their account manager; "
            "the platform team reviews increases within 3 business days.",
        ),
    ],
    "Billing": [
        (
            "billing-1",
            "Subscriptions are billed in advance on the first day of each billing cycle, either "
            "monthly or annually. Usage-based charges are billed in arrears at the end of each month.",
        ),
        (
            "billing-2",
            "Invoices are due within 30 days. If a payment fails, we retry it after 3, 7 and 14 "
            "days and email the billing contact each time.",
        ),
        (
            "billing-3",
            "Accounts with an invoice unpaid for more than 45 days are suspended; they are "
            "reactivated within one hour of full payment.",
        ),
        (
            "billing-4",
            "Upgrades take effect immediately and are charged pro rata for the rest of the cycle. "
            "Downgrades take effect at the start of the next billing cycle.",
        ),
    ],
}

PASSAGES: list[dict] = [
    {"id": pid, "document": doc, "text": text} for doc, items in DOCUMENTS.items() for pid, text in items
]
TEXT = {p["id"]: p["text"] for p in PASSAGES}
DOC_OF = {p["id"]: p["document"] for p in PASSAGES}


# --------------------------------------------------------------------------------------------------
# The queries. For each system: the rank (1-5) at which it retrieved each ground-truth passage, in the
# order of `gt` (None = not retrieved), the wrong passages it put in front (`lead`), and its answer.
# --------------------------------------------------------------------------------------------------


@dataclass
class Run:
    ranks: list[int | None]
    answer: str
    lead: list[str] = field(default_factory=list)


@dataclass
class Query:
    id: str
    query: str
    expected: str
    gt: list[str]
    baseline: Run
    enhanced: Run
    grades: list[int] | None = None  # graded relevance aligned with `gt`, where judged


QUERIES: list[Query] = [
    Query(
        "q01",
        "How long do I have to ask for a refund on a monthly plan?",
        "Monthly plans can be fully refunded within 14 days of the first payment. After 14 days they are "
        "not refundable, but you can cancel to stop the next renewal.",
        ["refunds-1"],
        baseline=Run([2], "You can get a refund within 14 days. After that you can cancel the plan."),
        enhanced=Run(
            [1],
            "On a monthly plan you can ask for a full refund within 14 days of your first "
            "payment. After 14 days a monthly plan is not refundable, but you can cancel to stop the "
            "next renewal.",
        ),
    ),
    Query(
        "q02",
        "Is an annual subscription still refundable after two months?",
        "No. Annual plans can only be refunded pro rata within the first 60 days, minus a 10% "
        "administration fee; after 60 days they are non-refundable.",
        ["refunds-2"],
        baseline=Run([1], "No, annual plans are non-refundable after 60 days."),
        # REGRESSION: the reranker prefers the Billing passages about annual cycles and pro-rata charges.
        enhanced=Run(
            [3],
            "Yes. Annual subscriptions are billed in advance and changes are charged pro "
            "rata, so you would be refunded pro rata for the remaining months of the cycle.",
            lead=["billing-4", "billing-1"],
        ),
    ),
    Query(
        "q03",
        "How long does it take for a refund to arrive?",
        "Refunds are issued to the original payment method and normally arrive within 5 to 10 business days.",
        ["refunds-3"],
        baseline=Run([1], "Refunds normally arrive within 5 to 10 business days."),
        enhanced=Run(
            [1], "Refunds are issued to the original payment method and normally arrive within 5 to 10 business days."
        ),
    ),
    Query(
        "q04",
        "Who has to approve a refund of $800?",
        "Support agents can only approve refunds up to $500, so an $800 refund needs approval from the Finance team.",
        ["refunds-3"],
        baseline=Run([3], "Refunds are approved by a support agent and paid to the original payment method."),
        enhanced=Run(
            [1],
            "Support agents can approve refunds up to $500, so a refund of $800 needs approval from the Finance team.",
        ),
    ),
    Query(
        "q05",
        "Are overage fees refundable?",
        "No. Usage-based charges, such as overage fees for compute and storage, are never refunded.",
        ["refunds-4"],
        baseline=Run([1], "No, usage-based charges are never refunded."),
        enhanced=Run(
            [1],
            "No, overage fees are not refundable: usage-based charges such as overage fees for "
            "compute and storage are never refunded.",
        ),
    ),
    Query(
        "q06",
        "What uptime does Northwind Cloud guarantee on the Enterprise tier?",
        "The Enterprise tier is guaranteed 99.95% monthly uptime (the Standard tier 99.9%).",
        ["sla-1"],
        baseline=Run([1], "Northwind Cloud guarantees 99.9% uptime."),
        enhanced=Run(
            [1],
            "On the Enterprise tier, Northwind Cloud guarantees 99.95% monthly uptime, measured per "
            "region; the Standard tier is guaranteed 99.9%.",
        ),
    ),
    Query(
        "q07",
        "Uptime was 98.5% last month on the Standard tier. What credit do we get?",
        "98.5% is below 99.0%, so the service credit is 25% of the monthly fee.",
        ["sla-2"],
        baseline=Run([2], "You get a service credit of 10% of the monthly fee."),
        enhanced=Run([1], "Uptime of 98.5% is below 99.0%, so you receive a service credit of 25% of the monthly fee."),
    ),
    Query(
        "q08",
        "How do I claim an SLA service credit, and by when?",
        "Open a support ticket within 30 days of the end of the affected month. Credits are capped at 50% "
        "of the monthly fee.",
        ["sla-3"],
        baseline=Run([4], "Service credits are applied automatically to your next invoice."),
        enhanced=Run(
            [1],
            "To claim an SLA service credit, open a support ticket within 30 days of the end of "
            "the affected month. Credits are capped at 50% of the monthly fee.",
        ),
    ),
    Query(
        "q09",
        "Does scheduled maintenance count as downtime?",
        "No, not if it was announced at least 72 hours in advance. Outages caused by the customer's own "
        "configuration do not count either.",
        ["sla-4"],
        baseline=Run([1], "No, scheduled maintenance does not count as downtime."),
        enhanced=Run(
            [1],
            "No. Scheduled maintenance does not count as downtime if it was announced at least 72 "
            "hours in advance, and neither do outages caused by the customer's own configuration.",
        ),
    ),
    Query(
        "q10",
        "Our Standard-tier uptime was 94% last month. What credit applies, and is it paid out in cash?",
        "Below 95.0% the credit is 50% of the monthly fee. It is not paid out as a refund; service credits "
        "are applied to the next invoice.",
        ["sla-2", "refunds-4"],  # two documents
        grades=[2, 2],
        baseline=Run(
            [3, None], "You get a service credit, which is paid back as a refund to your original payment method."
        ),
        enhanced=Run(
            [1, 2],
            "Uptime below 95.0% earns a service credit of 50% of the monthly fee. Service "
            "credits are not paid out as refunds; they are applied to the next invoice.",
        ),
    ),
    Query(
        "q11",
        "How long is customer data kept after an account is closed?",
        "Data is retained for 30 days after the account is closed so that it can be restored, and then it "
        "is permanently deleted.",
        ["retention-1"],
        baseline=Run([1], "Data is kept for 30 days after the account is closed."),
        enhanced=Run(
            [1],
            "After an account is closed, its data is retained for 30 days so that it can be "
            "restored, and then it is permanently deleted.",
        ),
    ),
    Query(
        "q12",
        "How long are backups kept?",
        "Backups are encrypted and kept for 35 days on a rolling basis, so deleted data can persist in "
        "backups for up to 35 days.",
        ["retention-2"],
        baseline=Run([2], "Backups are kept for 30 days."),
        enhanced=Run(
            [1],
            "Backups are kept for 35 days on a rolling basis and are encrypted, so deleted data "
            "can remain in backups for up to 35 days.",
        ),
    ),
    Query(
        "q13",
        "How long do we keep billing records?",
        "Billing records are kept for 7 years to meet tax and audit requirements.",
        ["retention-3"],
        baseline=Run([None], "Invoices are due within 30 days."),
        enhanced=Run([1], "Billing records are kept for 7 years to meet tax and audit requirements."),
    ),
    Query(
        "q14",
        "How quickly must we complete a GDPR request for immediate deletion?",
        "Within 30 days. Deleted data can still persist in backups for up to 35 days after deletion.",
        ["retention-4", "retention-2"],
        grades=[2, 1],
        baseline=Run([1, None], "GDPR deletion requests are completed within 30 days."),
        enhanced=Run(
            [1, 3],
            "Requests for immediate deletion under GDPR are completed within 30 days. Note "
            "that deleted data can persist in encrypted backups for up to 35 days after deletion.",
        ),
    ),
    Query(
        "q15",
        "When does the on-call rotation hand over?",
        "The rotation is weekly and hands over on Mondays at 10:00 UTC.",
        ["oncall-1"],
        baseline=Run([1], "On-call hands over every Monday."),
        enhanced=Run([1], "The on-call rotation is weekly and hands over on Mondays at 10:00 UTC."),
    ),
    Query(
        "q16",
        "How quickly must the primary on-call engineer acknowledge a page?",
        "Within 5 minutes; if the page is not acknowledged within 15 minutes it escalates to the secondary engineer.",
        ["oncall-2"],
        baseline=Run([3], "As quickly as possible, ideally within 15 minutes."),
        enhanced=Run(
            [1],
            "The primary on-call engineer must acknowledge a page within 5 minutes; after 15 "
            "minutes without acknowledgement it escalates to the secondary engineer.",
        ),
    ),
    Query(
        "q17",
        "What happens if nobody acknowledges a page?",
        "If the page is not acknowledged within 15 minutes, it escalates to the secondary on-call engineer "
        "and then to the engineering manager.",
        ["oncall-2"],
        baseline=Run([1], "It escalates to the secondary engineer after 15 minutes."),
        # REGRESSION: the reranker puts the Security passage about paging the incident commander first.
        enhanced=Run(
            [2],
            "The incident commander is paged at once, at any hour, so someone always responds.",
            lead=["security-2"],
        ),
    ),
    Query(
        "q18",
        "What compensation do on-call engineers get?",
        "A stipend of $300 per week, plus one day of time off after any week with more than two night-time pages.",
        ["oncall-3"],
        baseline=Run([5], "It depends on the team; please check with your manager."),
        enhanced=Run(
            [1],
            "On-call engineers get a stipend of $300 per week as compensation, plus one day off "
            "after any week with more than two night-time pages.",
        ),
    ),
    Query(
        "q19",
        "When is a postmortem required, and how soon must it be written?",
        "After every SEV1 or SEV2 incident the on-call engineer writes a blameless postmortem within 5 business days.",
        ["oncall-4", "security-2"],
        grades=[2, 1],
        baseline=Run([2, 4], "It should be written soon after the incident is resolved."),
        enhanced=Run(
            [1, 2],
            "A postmortem is required after every SEV1 or SEV2 incident: the on-call engineer "
            "must write a blameless postmortem within 5 business days.",
        ),
    ),
    Query(
        "q20",
        "I think my laptop has been compromised. What should I do first?",
        "Report it immediately in the #security-incident Slack channel or via the security hotline, without "
        "investigating on your own. Revoke and rotate your credentials, and isolate the laptop from the "
        "network without powering it off.",
        ["security-1", "security-4"],
        grades=[2, 2],
        baseline=Run([4, 2], "Turn off the laptop and change your passwords."),
        enhanced=Run(
            [1, 2],
            "If your laptop is compromised, first report it immediately in #security-incident "
            "or by calling the security hotline, and do not investigate on your own. Revoke and "
            "rotate your credentials, and isolate the laptop from the network but do not power it "
            "off.",
        ),
    ),
    Query(
        "q21",
        "What counts as a SEV1 security incident?",
        "A SEV1 is an active breach of customer data; the incident commander must be paged at once, at any hour.",
        ["security-2"],
        baseline=Run([1], "SEV1 is the most severe incident level."),
        enhanced=Run(
            [1],
            "A SEV1 security incident is an active breach of customer data, and it requires the "
            "incident commander to be paged at once, at any hour.",
        ),
    ),
    Query(
        "q22",
        "How soon must customers be told about a breach of their personal data?",
        "The Legal team notifies the affected customers and the regulator within 72 hours of confirming the breach.",
        ["security-3"],
        baseline=Run([2], "Customers are notified within 72 hours."),
        enhanced=Run(
            [1],
            "If customer personal data is affected, the Legal team notifies the affected "
            "customers and the regulator within 72 hours of confirming the breach.",
        ),
    ),
    Query(
        "q23",
        "Should I power off a compromised laptop?",
        "No. Isolate it from the network but do not power it off, so that forensic evidence is preserved.",
        ["security-4"],
        baseline=Run([1], "No, isolate it from the network instead."),
        enhanced=Run(
            [1],
            "No, you should not power off a compromised laptop. Isolate it from the network "
            "instead, so that forensic evidence is preserved.",
        ),
    ),
    Query(
        "q24",
        "Does Northwind Cloud offer discounts for non-profit organisations?",
        "The handbook does not say whether Northwind Cloud offers discounts for non-profit organisations.",
        [],  # no passage answers it
        baseline=Run([], "Yes, non-profit organisations get a discount on annual plans."),
        enhanced=Run(
            [],
            "The handbook does not mention discounts for non-profit organisations, so I cannot "
            "say whether they are offered.",
        ),
    ),
    Query(
        "q25",
        "What is the API rate limit on the Standard tier?",
        "100 requests per second per API key (the Enterprise tier allows 1,000).",
        ["ratelimits-1"],
        baseline=Run([1], "The limit is 100 requests per second."),
        enhanced=Run(
            [1], "The Standard tier allows 100 requests per second per API key; the Enterprise tier allows 1,000."
        ),
    ),
    Query(
        "q26",
        "What does an HTTP 429 response mean and what should my client do?",
        "The client has exceeded its rate limit. Wait the number of seconds given in the Retry-After header "
        "and retry with exponential backoff and jitter.",
        ["ratelimits-2", "ratelimits-3"],
        grades=[2, 1],
        baseline=Run([1, 3], "It means Too Many Requests. Wait and try again."),
        enhanced=Run(
            [1, 2],
            "A 429 Too Many Requests response means you exceeded your rate limit. Wait for the "
            "number of seconds in the Retry-After header, then retry with exponential backoff and "
            "jitter.",
        ),
    ),
    Query(
        "q27",
        "Why was my API key blocked for an hour?",
        "Keys that keep exceeding their rate limit for more than 10 minutes are temporarily blocked for one hour.",
        ["ratelimits-3"],
        baseline=Run([3], "Your key may have been blocked for security reasons."),
        enhanced=Run(
            [2],
            "Your key kept exceeding its rate limit for more than 10 minutes, so it was "
            "temporarily blocked for one hour.",
        ),
    ),
    Query(
        "q28",
        "How can an Enterprise customer get a higher rate limit?",
        "They request it through their account manager; the platform team reviews increases within 3 business days.",
        ["ratelimits-4"],
        baseline=Run([2], "Enterprise customers already get 1,000 requests per second."),
        enhanced=Run(
            [1],
            "Enterprise customers can request a higher limit through their account manager, and "
            "the platform team reviews the increase within 3 business days.",
        ),
    ),
    Query(
        "q29",
        "When are subscriptions charged?",
        "Subscriptions are billed in advance on the first day of each monthly or annual billing cycle; "
        "usage-based charges are billed in arrears at the end of each month.",
        ["billing-1"],
        baseline=Run([2], "On the first of the month."),
        enhanced=Run(
            [1],
            "Subscriptions are charged in advance on the first day of each billing cycle, monthly "
            "or annually. Usage-based charges are billed in arrears at the end of each month.",
        ),
    ),
    Query(
        "q30",
        "What happens when a payment fails?",
        "The payment is retried after 3, 7 and 14 days, and the billing contact is emailed each time.",
        ["billing-2"],
        baseline=Run([2], "The payment is retried and the account may be suspended."),
        enhanced=Run(
            [2], "When a payment fails, we retry it after 3, 7 and 14 days and email the billing contact each time."
        ),
    ),
    Query(
        "q31",
        "When is an account suspended for non-payment?",
        "When an invoice has been unpaid for more than 45 days. The account is reactivated within one hour "
        "of full payment.",
        ["billing-3"],
        baseline=Run([None], "After the last retry, 14 days after the payment failed."),
        enhanced=Run(
            [1],
            "An account is suspended for non-payment when an invoice is unpaid for more than 45 "
            "days; it is reactivated within one hour of full payment.",
        ),
    ),
    Query(
        "q32",
        "If I downgrade my plan in the middle of the month, when does it take effect?",
        "Downgrades take effect at the start of the next billing cycle; upgrades take effect immediately and "
        "are charged pro rata.",
        ["billing-4"],
        baseline=Run([3], "The downgrade takes effect immediately and is charged pro rata."),
        enhanced=Run(
            [2],
            "A downgrade takes effect at the start of the next billing cycle. Upgrades, by "
            "contrast, take effect immediately and are charged pro rata.",
        ),
    ),
    Query(
        "q33",
        "How long do we keep logs from a security incident?",
        "Evidence and logs from a security incident are kept for one year after the incident is closed, "
        "separately from normal log retention.",
        ["security-5"],
        baseline=Run([1], "Security incident logs are kept for one year after the incident is closed."),
        # REGRESSION: hybrid retrieval goes to the Data Retention document and misses security-5.
        enhanced=Run([None], "Application and access logs are retained for 90 days.", lead=["retention-3"]),
    ),
    Query(
        "q34",
        "After a SEV1 incident involving customer personal data, what must the on-call engineer write, "
        "and who notifies the customers?",
        "The on-call engineer writes a blameless postmortem within 5 business days, and the Legal team "
        "notifies the affected customers and the regulator within 72 hours of confirming the breach.",
        ["oncall-4", "security-3"],  # two documents
        baseline=Run([2, None], "The on-call engineer writes a postmortem and notifies the customers."),
        enhanced=Run(
            [1, 2],
            "After such a SEV1 incident the on-call engineer must write a blameless postmortem "
            "within 5 business days, and the Legal team notifies the affected customers and the "
            "regulator within 72 hours of confirming the breach.",
        ),
    ),
]


# --------------------------------------------------------------------------------------------------
# Okapi BM25 over the passages, used to pick the distractors that fill the retrieved lists.
# --------------------------------------------------------------------------------------------------

STOPWORDS = set(
    "a an and are as at be by can do does for from get how i if in is it its my of on or our so that the "
    "their them they this to us we what when which who why will with you your".split()
)


def terms(text: str) -> list[str]:
    """Lower-cased words without stopwords, plural "s" stripped ("refunds" -> "refund")."""
    words = [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOPWORDS]
    return [t[:-1] if len(t) > 3 and t.endswith("s") and not t.endswith("ss") else t for t in words]


DOC_TERMS = {pid: terms(text) for pid, text in TEXT.items()}
AVG_LEN = sum(len(t) for t in DOC_TERMS.values()) / len(DOC_TERMS)
DF = Counter(t for ts in DOC_TERMS.values() for t in set(ts))


def bm25(query: str, pid: str, k1: float = 1.5, b: float = 0.75) -> float:
    tf = Counter(DOC_TERMS[pid])
    n, length = len(DOC_TERMS), len(DOC_TERMS[pid])
    score = 0.0
    for t in sorted(set(terms(query))):
        if tf[t]:
            idf = math.log(1 + (n - DF[t] + 0.5) / (DF[t] + 0.5))
            score += idf * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * length / AVG_LEN))
    return score


def retrieve(q: Query, run: Run, system: str) -> list[str]:
    """The system's top-K passage ids: relevant passages at their stated ranks, `lead` first, then filler."""
    slots: list[str | None] = [None] * K
    for i, pid in enumerate(run.lead):
        slots[i] = pid
    for pid, rank in zip(q.gt, run.ranks, strict=True):
        if rank is not None:
            assert slots[rank - 1] is None, (q.id, system, rank)
            slots[rank - 1] = pid
    # Passages with equal scores (mostly 0: no query term) are ordered at random, seeded per query.
    order = random.Random(f"ties:{system}:{q.id}").sample(sorted(TEXT), len(TEXT))
    tie = {pid: i for i, pid in enumerate(order)}
    used = {pid for pid in slots if pid} | set(q.gt)  # a missed relevant passage is never filler
    if slots[0] is None:  # the best BM25 passage that is left comes first
        slots[0] = min((pid for pid in TEXT if pid not in used), key=lambda pid: (-bm25(q.query, pid), tie[pid]))
        used.add(slots[0])
    top_doc = DOC_OF[slots[0]]
    # The enhanced system's reranker keeps passages from the top passage's document together.
    bonus = max(bm25(q.query, pid) for pid in TEXT) if system == "enhanced" else 0.0

    def filler_score(pid: str) -> float:
        return bm25(q.query, pid) + (bonus if DOC_OF[pid] == top_doc else 0.0)

    filler = iter(sorted((pid for pid in TEXT if pid not in used), key=lambda pid: (-filler_score(pid), tie[pid])))
    return [pid if pid is not None else next(filler) for pid in slots]


# --------------------------------------------------------------------------------------------------
# Synthetic scores, latency and token counts, seeded per (system, query).
# --------------------------------------------------------------------------------------------------

PROMPT_OVERHEAD = {"baseline": 480, "enhanced": 465}  # system prompt and formatting, in tokens
LATENCY_TAIL = {"baseline": {"q10", "q20", "q34"}, "enhanced": {"q20", "q34"}}


def approx_tokens(text: str) -> int:
    return math.ceil(1.25 * len(re.findall(r"\w+|[^\w\s]", text)))


def relevance_scores(system: str, answerable: bool, rng: random.Random) -> list[float]:
    if system == "baseline":  # BM25 normalised: flat, the top passage barely stands out
        scores = [rng.uniform(0.52, 0.78)]
        for _ in range(K - 1):
            scores.append(scores[-1] - rng.uniform(0.02, 0.09))
    else:  # cross-encoder: a confident top passage, then a steep drop ...
        # ... except where nothing in the corpus answers the query: then even the top passage scores low.
        scores = [rng.uniform(0.82, 0.97) if answerable else rng.uniform(0.2, 0.32)]
        scores.append(scores[-1] * rng.uniform(0.6, 0.82))
        for _ in range(K - 2):
            scores.append(scores[-1] * rng.uniform(0.55, 0.9))
    return [round(s, 3) for s in scores]


def latency(system: str, qid: str, rng: random.Random) -> float:
    if system == "baseline":
        value = rng.uniform(2.45, 2.62) if qid in LATENCY_TAIL[system] else rng.triangular(1.2, 2.2, 1.5)
    else:
        value = rng.uniform(1.42, 1.6) if qid in LATENCY_TAIL[system] else rng.triangular(0.7, 1.35, 0.95)
    return round(value, 3)


def sample(q: Query, system: str) -> dict:
    run: Run = getattr(q, system)
    assert len(run.ranks) == len(q.gt), q.id
    rng = random.Random(f"{system}:{q.id}")
    ids = retrieve(q, run, system)
    contexts = [TEXT[pid] for pid in ids]
    record = {
        "id": q.id,
        "system": system,
        "query": q.query,
        "expected_answer": q.expected,
        "actual_answer": run.answer,
        "retrieved_ids": ids,
        "retrieved_contexts": contexts,
        "ground_truth_ids": list(q.gt),
        "ground_truth_contexts": [TEXT[pid] for pid in q.gt],
        "relevance_scores": relevance_scores(system, bool(q.gt), rng),
    }
    if q.grades is not None:
        assert len(q.grades) == len(q.gt), q.id
        record["ground_truth_relevance"] = list(q.grades)
    record["latency"] = latency(system, q.id, rng)
    record["prompt_tokens"] = PROMPT_OVERHEAD[system] + approx_tokens(q.query) + sum(approx_tokens(c) for c in contexts)
    record["completion_tokens"] = approx_tokens(run.answer)
    return record


def write_jsonl(path: Path, records: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def main() -> None:
    assert len({q.id for q in QUERIES}) == len(QUERIES)
    assert all(pid in TEXT for q in QUERIES for pid in q.gt)
    with (HERE / "documents.json").open("w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(PASSAGES, ensure_ascii=False, indent=2) + "\n")
    for system in ("baseline", "enhanced"):
        records = [sample(q, system) for q in QUERIES]
        write_jsonl(HERE / f"{system}.jsonl", records)
        found = sum(any(p in r["ground_truth_ids"] for p in r["retrieved_ids"][:1]) for r in records)
        print(f"{system}: {len(records)} samples, relevant passage at rank 1 for {found}")


if __name__ == "__main__":
    main()
