package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

/**
 * A row of results measured on one provider and path, as the report groups them.
 */
interface PathRow
{
    Provider provider();

    RaasPath path();
}
