package io.dkv.verbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A numeric property is read as decimal, or as hexadecimal after 0x (a DC key is written so in the deployments'
 * manifests); anything else is an error naming the property.
 */
class ConfigurationPropertiesTest
{
    private static final String NAME = "dkv.test.configuration.properties";

    @Test
    void numbersAreDecimalOrHexadecimal()
    {
        try
        {
            assertEquals(7L, ConfigurationProperties.longProperty(NAME, 7), "unset: the default");
            System.setProperty(NAME, " 010 ");
            assertEquals(10L, ConfigurationProperties.longProperty(NAME, 7), "a leading 0 is not octal");
            System.setProperty(NAME, "0x06f204c5a3d2521c");
            assertEquals(0x06f204c5a3d2521cL, ConfigurationProperties.longProperty(NAME, 7));
            System.setProperty(NAME, "-0X10");
            assertEquals(-16, ConfigurationProperties.intProperty(NAME, 7));
            System.setProperty(NAME, "0x100000000");
            assertThrows(IllegalArgumentException.class, () -> ConfigurationProperties.intProperty(NAME, 7));
            System.setProperty(NAME, "twelve");
            assertEquals("property " + NAME + "='twelve' is not an integer",
                assertThrows(IllegalArgumentException.class, () -> ConfigurationProperties.longProperty(NAME, 7))
                    .getMessage());
        }
        finally
        {
            System.clearProperty(NAME);
        }
    }
}
