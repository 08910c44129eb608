"""The route table: every path and method of the API, each declared once.

A ``Route`` names the handler function (in ``placer.handlers``: it parses
the request, calls the core in one transaction and renders the answer),
the microversions it is served at (``since``, and ``until`` if it ends),
its body, query and answer schemas (a plain value holds from ``since``, a
``Since`` changes at the versions it names), whether it is served without a
token (``open``), and the policy rule the router checks before the handler.
``placer.http.routing`` describes the fields and what routing answers.

The application is built from this table (``placer.wsgi`` hands it to
``placer.http.app.make``): the router, the paths served without a token,
the metrics' route labels and the OpenAPI document all come from here, and
handlers find their validators in their route (``util.body_schema``,
``util.query_schema``). Adding a route is adding an entry here. The policy
rules themselves (defaults, descriptions) are in ``placer.policy``; the
operations the sample policy file lists for each come from here
(``policy_defaults``).

Order matters: the OpenAPI document lists the paths in this order, and
``Allow`` a path's methods.
"""

from oslo_policy import policy as oslo_policy

from placer import microversions as mv
from placer import policy
from placer.handlers import (
    aggregates,
    allocation_candidates,
    allocations,
    audit,
    capacity,
    inventories,
    metrics,
    openapi,
    reshaper,
    resource_classes,
    resource_providers,
    root,
    traits,
    usages,
)
from placer.http import metrics as http_metrics
from placer.http.routing import Answers, Route, Table
from placer.schemas import aggregates as aggregates_schema
from placer.schemas import allocation_candidates as candidates_schema
from placer.schemas import allocations as allocations_schema
from placer.schemas import audit as audit_schema
from placer.schemas import capacity as capacity_schema
from placer.schemas import inventories as inventories_schema
from placer.schemas import openapi as openapi_schema
from placer.schemas import reshaper as reshaper_schema
from placer.schemas import resource_classes as resource_classes_schema
from placer.schemas import resource_providers as resource_providers_schema
from placer.schemas import responses as r
from placer.schemas import traits as traits_schema
from placer.schemas import usages as usages_schema
from placer.schemas.versioned import Since

NO_CONTENT: Answers = {204: None}
CREATED: Answers = {201: None}
# DELETE .../inventories before 1.5: the path exists, the method not yet (an
# answer that is only an error is given by the router; the body is the error
# document, as for every error)
METHOD_NOT_ALLOWED: Answers = {405: None}

_PROVIDER = Since({mv.BASE: {200: r.PROVIDER}, mv.NESTED_PROVIDERS: {200: r.PROVIDER_1_14}})
_AGGREGATES = Since({mv.PROVIDER_AGGREGATES: {200: r.AGGREGATES},
                     mv.AGGREGATES_GENERATION: {200: r.AGGREGATES_1_19}})

ROUTES = Table([
    Route("GET", "/", root.home, open=True, answers={200: r.VERSIONS}),
    # not the reference's (docs/api/differences.md)
    Route("GET", "/openapi.json", openapi.document, open=True,
          query=openapi_schema.QUERY, answers={200: r.OPENAPI}),

    # resource classes
    Route("GET", "/resource_classes", resource_classes.list_classes,
          since=mv.RESOURCE_CLASSES, policy=policy.RESOURCE_CLASSES_LIST,
          answers={200: r.RESOURCE_CLASSES}),
    Route("POST", "/resource_classes", resource_classes.create_class,
          since=mv.RESOURCE_CLASSES, policy=policy.RESOURCE_CLASSES_CREATE,
          body=resource_classes_schema.CLASS, answers=CREATED),
    Route("GET", "/resource_classes/{name}", resource_classes.show_class,
          since=mv.RESOURCE_CLASSES, policy=policy.RESOURCE_CLASSES_SHOW,
          answers={200: r.RESOURCE_CLASS}),
    Route("PUT", "/resource_classes/{name}", resource_classes.update_class,
          since=mv.RESOURCE_CLASSES, policy=policy.RESOURCE_CLASSES_UPDATE,
          body=Since({mv.RESOURCE_CLASSES: resource_classes_schema.CLASS,
                      mv.PUT_RESOURCE_CLASS: None}),
          answers=Since({mv.RESOURCE_CLASSES: {200: r.RESOURCE_CLASS},
                         mv.PUT_RESOURCE_CLASS: {201: None, 204: None}})),
    Route("DELETE", "/resource_classes/{name}", resource_classes.delete_class,
          since=mv.RESOURCE_CLASSES, policy=policy.RESOURCE_CLASSES_DELETE,
          answers=NO_CONTENT),

    # resource providers
    Route("GET", "/resource_providers", resource_providers.list_providers,
          policy=policy.RESOURCE_PROVIDERS_LIST, query=resource_providers_schema.QUERY,
          answers=Since({mv.BASE: {200: r.PROVIDERS},
                         mv.NESTED_PROVIDERS: {200: r.PROVIDERS_1_14}})),
    Route("POST", "/resource_providers", resource_providers.create_provider,
          policy=policy.RESOURCE_PROVIDERS_CREATE,
          body=Since({mv.BASE: resource_providers_schema.POST,
                      mv.NESTED_PROVIDERS: resource_providers_schema.POST_1_14}),
          answers=Since({mv.BASE: CREATED, mv.CREATE_PROVIDER_BODY: {200: r.PROVIDER_1_14}})),
    Route("GET", "/resource_providers/{uuid}", resource_providers.show_provider,
          policy=policy.RESOURCE_PROVIDERS_SHOW, answers=_PROVIDER),
    Route("DELETE", "/resource_providers/{uuid}", resource_providers.delete_provider,
          policy=policy.RESOURCE_PROVIDERS_DELETE, answers=NO_CONTENT),
    Route("PUT", "/resource_providers/{uuid}", resource_providers.update_provider,
          policy=policy.RESOURCE_PROVIDERS_UPDATE,
          body=Since({mv.BASE: resource_providers_schema.PUT,
                      mv.NESTED_PROVIDERS: resource_providers_schema.PUT_1_14}),
          answers=_PROVIDER),

    # inventories
    Route("GET", "/resource_providers/{uuid}/inventories", inventories.list_inventories,
          policy=policy.INVENTORIES_LIST, answers={200: r.INVENTORIES}),
    Route("POST", "/resource_providers/{uuid}/inventories", inventories.create_inventory,
          policy=policy.INVENTORIES_CREATE, body=inventories_schema.NEW,
          answers={201: r.INVENTORY}),
    Route("PUT", "/resource_providers/{uuid}/inventories", inventories.replace_inventories,
          policy=policy.INVENTORIES_UPDATE, body=inventories_schema.ALL,
          answers={200: r.INVENTORIES}),
    # the reference answers 405 (not 404) before 1.5: the path exists
    Route("DELETE", "/resource_providers/{uuid}/inventories", inventories.delete_inventories,
          policy=policy.INVENTORIES_DELETE,
          answers=Since({mv.BASE: METHOD_NOT_ALLOWED, mv.DELETE_ALL_INVENTORIES: NO_CONTENT})),
    Route("GET", "/resource_providers/{uuid}/inventories/{resource_class}",
          inventories.show_inventory, policy=policy.INVENTORIES_SHOW,
          answers={200: r.INVENTORY}),
    Route("PUT", "/resource_providers/{uuid}/inventories/{resource_class}",
          inventories.update_inventory, policy=policy.INVENTORIES_UPDATE,
          body=inventories_schema.ONE, answers={200: r.INVENTORY}),
    Route("DELETE", "/resource_providers/{uuid}/inventories/{resource_class}",
          inventories.delete_inventory, policy=policy.INVENTORIES_DELETE,
          answers=NO_CONTENT),

    # usages, aggregates and traits of a provider
    Route("GET", "/resource_providers/{uuid}/usages", usages.provider_usages,
          policy=policy.PROVIDER_USAGES, answers={200: r.PROVIDER_USAGES}),
    # as the reference: a 406 or 415 before the 404 below 1.1
    Route("GET", "/resource_providers/{uuid}/aggregates", aggregates.list_aggregates,
          since=mv.PROVIDER_AGGREGATES, policy=policy.AGGREGATES_LIST,
          content_before_version=True, answers=_AGGREGATES),
    Route("PUT", "/resource_providers/{uuid}/aggregates", aggregates.set_aggregates,
          since=mv.PROVIDER_AGGREGATES, policy=policy.AGGREGATES_UPDATE,
          content_before_version=True,
          body=Since({mv.PROVIDER_AGGREGATES: aggregates_schema.SET_AGGREGATES_1_1,
                      mv.AGGREGATES_GENERATION: aggregates_schema.SET_AGGREGATES_1_19}),
          answers=_AGGREGATES),
    Route("GET", "/resource_providers/{uuid}/traits", traits.list_provider_traits,
          since=mv.TRAITS, policy=policy.PROVIDER_TRAITS_LIST,
          answers={200: r.PROVIDER_TRAITS}),
    Route("PUT", "/resource_providers/{uuid}/traits", traits.set_provider_traits,
          since=mv.TRAITS, policy=policy.PROVIDER_TRAITS_UPDATE,
          body=traits_schema.SET_PROVIDER_TRAITS, answers={200: r.PROVIDER_TRAITS}),
    Route("DELETE", "/resource_providers/{uuid}/traits", traits.delete_provider_traits,
          since=mv.TRAITS, policy=policy.PROVIDER_TRAITS_DELETE, answers=NO_CONTENT),

    # allocations
    Route("GET", "/resource_providers/{uuid}/allocations", allocations.list_for_provider,
          policy=policy.PROVIDER_ALLOCATIONS_LIST,
          answers=Since({mv.BASE: {200: r.provider_allocations(False)},
                         mv.CONSUMER_GENERATIONS: {200: r.provider_allocations(True)}})),
    Route("POST", "/allocations", allocations.set_many,
          since=mv.POST_ALLOCATIONS, policy=policy.ALLOCATIONS_MANAGE,
          body=allocations_schema.POST_BODY, answers=NO_CONTENT),
    Route("GET", "/allocations/{consumer_uuid}", allocations.list_for_consumer,
          policy=policy.ALLOCATIONS_LIST, answers=Since({
              mv.BASE: {200: r.consumer_allocations([])},
              mv.ALLOCATIONS_DICT: {200: r.consumer_allocations(["project_id", "user_id"])},
              mv.CONSUMER_GENERATIONS: {200: r.consumer_allocations(
                  ["project_id", "user_id", "consumer_generation"])},
              mv.CONSUMER_TYPES: {200: r.consumer_allocations(
                  ["project_id", "user_id", "consumer_generation", "consumer_type"])}})),
    Route("PUT", "/allocations/{consumer_uuid}", allocations.set_for_consumer,
          policy=policy.ALLOCATIONS_UPDATE, body=allocations_schema.PUT_BODY,
          answers=NO_CONTENT),
    Route("DELETE", "/allocations/{consumer_uuid}", allocations.delete_for_consumer,
          policy=policy.ALLOCATIONS_DELETE, answers=NO_CONTENT),

    # allocation candidates
    Route("GET", "/allocation_candidates", allocation_candidates.list_candidates,
          since=mv.ALLOCATION_CANDIDATES, policy=policy.ALLOCATION_CANDIDATES_LIST,
          query=candidates_schema.QUERY,
          answers=Since({
              mv.ALLOCATION_CANDIDATES: {200: r.candidates("list", False, False)},
              mv.ALLOCATIONS_DICT: {200: r.candidates("dict", False, False)},
              mv.CANDIDATES_REQUIRED: {200: r.candidates("dict", True, False)},
              mv.NESTED_CANDIDATES: {200: r.candidates("dict", True, True)},
              mv.GROUP_MAPPINGS: {200: r.candidates("mappings", True, True)}})),
    # not the reference's (docs/api/differences.md): the same query plus provider=<uuid>
    Route("GET", "/allocation_candidates/explain", allocation_candidates.explain_candidates,
          since=mv.ALLOCATION_CANDIDATES, policy=policy.ALLOCATION_CANDIDATES_EXPLAIN,
          query=candidates_schema.EXPLAIN_QUERY, answers={200: r.EXPLAIN}),

    # not the reference's (docs/api/differences.md): how much is left
    Route("GET", "/capacity", capacity.show_capacity,
          since=mv.ALLOCATION_CANDIDATES, policy=policy.CAPACITY_SHOW,
          query=capacity_schema.QUERY, answers={200: r.CAPACITY}),
    Route("POST", "/capacity", capacity.count_shapes,
          since=mv.ALLOCATION_CANDIDATES, policy=policy.CAPACITY_SHOW,
          body=capacity_schema.POST_BODY, answers={200: r.CAPACITY_SHAPES}),

    # not the reference's (docs/api/differences.md): what is inconsistent
    Route("GET", "/audit", audit.show_audit, policy=policy.AUDIT_SHOW,
          query=audit_schema.QUERY, answers={200: r.AUDIT}),

    # total usages: the handler checks the rule, with the queried project as target
    Route("GET", "/usages", usages.total_usages,
          since=mv.TOTAL_USAGES, policy=policy.TOTAL_USAGES, handler_checks_policy=True,
          query=Since({mv.TOTAL_USAGES: usages_schema.QUERY,
                       mv.CONSUMER_TYPES: usages_schema.QUERY_1_38}),
          answers=Since({mv.TOTAL_USAGES: {200: r.TOTAL_USAGES},
                         mv.CONSUMER_TYPES: {200: r.TOTAL_USAGES_1_38}})),

    Route("POST", "/reshaper", reshaper.reshape,
          since=mv.RESHAPER, policy=policy.RESHAPE, body=reshaper_schema.BODY,
          answers=NO_CONTENT),

    # traits
    Route("GET", "/traits", traits.list_traits,
          since=mv.TRAITS, policy=policy.TRAITS_LIST, query=traits_schema.LIST_QUERY,
          answers={200: r.TRAITS}),
    Route("GET", "/traits/{name}", traits.show_trait,
          since=mv.TRAITS, policy=policy.TRAITS_SHOW, answers=NO_CONTENT),
    Route("PUT", "/traits/{name}", traits.create_trait,
          since=mv.TRAITS, policy=policy.TRAITS_UPDATE, answers={201: None, 204: None}),
    Route("DELETE", "/traits/{name}", traits.delete_trait,
          since=mv.TRAITS, policy=policy.TRAITS_DELETE, answers=NO_CONTENT),

    # not the reference's (docs/api/differences.md): served when [placer] metrics_enabled
    # the handler checks the rule: [placer] metrics_open serves it to anyone
    Route("GET", "/metrics", metrics.show_metrics, policy=policy.METRICS_SHOW,
          handler_checks_policy=True, enabled=http_metrics.enabled),
])


def policy_defaults() -> list[oslo_policy.RuleDefault]:
    """Every policy rule's default, with the routes that check it (the
    oslo.policy.policies entry point: the sample policy file lists them)."""
    return policy.defaults(ROUTES.operations())


def policy_enforcer() -> oslo_policy.Enforcer:
    """The live enforcer (the oslo.policy.enforcer entry point)."""
    return policy.get_enforcer(policy_defaults())
