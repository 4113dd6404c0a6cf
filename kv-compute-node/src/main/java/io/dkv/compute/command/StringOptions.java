package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.compute.resp.RespNumbers;

import static io.dkv.compute.command.CommandTable.is;

/**
 * The options of SET and GETEX as redis 7's parseExtendedStringArgumentsOrReply takes them: [NX|XX] [GET] and KEEPTTL
 * (SET only), PERSIST (GETEX only), [EX s|PX ms|EXAT s|PXAT ms] (both; given twice, the last wins), refused with the
 * same syntax error in the same cases, and the expiry time they name, checked as its getExpireMillisecondsOrReply
 * does. SET also takes Valkey 8.1's IFEQ comparison-value, which redis 7 does not know: given once, and neither with
 * NX nor with XX (else the syntax error, as from Valkey). One per request: it holds what that request asked.
 */
final class StringOptions
{
    static final int NX = 1;
    static final int XX = 2;
    static final int GET = 4;
    static final int KEEPTTL = 8;
    static final int PERSIST = 16;
    static final int IFEQ = 512;
    private static final int EX = 32;
    private static final int PX = 64;
    private static final int EXAT = 128;
    private static final int PXAT = 256;
    private static final int ANY_EXPIRY = EX | PX | EXAT | PXAT;

    private int flags;
    private byte[] expire;
    private byte[] comparison;
    private long expireAtMillis = KvClient.NO_EXPIRY;

    /**
     * @param args the request.
     * @param from the index of its first option.
     * @param set  true for SET's options, false for GETEX's.
     * @return false when an option is unknown, repeated where redis refuses that, or missing its time: redis's
     * syntax error is the reply.
     */
    boolean parse(final byte[][] args, final int from, final boolean set)
    {
        for (int j = from; j < args.length; j++)
        {
            final byte[] opt = args[j];
            final int expiry = expiryOption(opt);
            if (set && is(opt, "nx") && (flags & (XX | IFEQ)) == 0)
            {
                flags |= NX;
            }
            else if (set && is(opt, "xx") && (flags & (NX | IFEQ)) == 0)
            {
                flags |= XX;
            }
            else if (set && is(opt, "ifeq") && j < args.length - 1 && (flags & (NX | XX | IFEQ)) == 0)
            {
                flags |= IFEQ;
                comparison = args[++j];
            }
            else if (set && is(opt, "get"))
            {
                flags |= GET;
            }
            else if (set && is(opt, "keepttl") && (flags & ANY_EXPIRY) == 0)
            {
                flags |= KEEPTTL;
            }
            else if (!set && is(opt, "persist") && (flags & ANY_EXPIRY) == 0)
            {
                flags |= PERSIST;
            }
            else if (expiry != 0 && j < args.length - 1 &&
                (flags & (KEEPTTL | PERSIST | (ANY_EXPIRY & ~expiry))) == 0)
            {
                flags |= expiry;
                expire = args[++j];
            }
            else
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Take a relative expiry given as its own argument, as SETEX and PSETEX do, as if EX or PX had named it.
     *
     * @param time    the argument.
     * @param seconds true for seconds (SETEX), false for milliseconds (PSETEX).
     * @return this.
     */
    StringOptions expireIn(final byte[] time, final boolean seconds)
    {
        flags |= seconds ? EX : PX;
        expire = time;
        return this;
    }

    boolean has(final int flag)
    {
        return (flags & flag) != 0;
    }

    /** @return the value IFEQ compares the key's with, or null when IFEQ was not given. */
    byte[] comparison()
    {
        return comparison;
    }

    /** @return true when EX, PX, EXAT or PXAT was given. */
    boolean hasExpiry()
    {
        return expire != null;
    }

    /**
     * Turn the expiry given into an absolute time, a relative one (EX, PX) from {@code nowMillis}.
     *
     * @param nowMillis the command's time, by the client's clock.
     * @param command   the command's name as redis's error names it.
     * @return null when the time is valid (then {@link #expireAtMillis()} gives it), else redis's error for it.
     */
    String resolveExpiry(final long nowMillis, final String command)
    {
        if (expire == null)
        {
            return null;
        }
        if (!RespNumbers.isLong(expire))
        {
            return Errors.NOT_INTEGER;
        }
        final long amount = RespNumbers.parseLong(expire);
        final boolean seconds = (flags & (EX | EXAT)) != 0;
        final boolean relative = (flags & (EX | PX)) != 0;
        if (amount <= 0 || seconds && amount > Long.MAX_VALUE / 1000)
        {
            return Errors.invalidExpireTime(command);
        }
        final long millis = seconds ? amount * 1000 : amount;
        if (relative && millis > Long.MAX_VALUE - nowMillis)
        {
            return Errors.invalidExpireTime(command);
        }
        expireAtMillis = relative ? nowMillis + millis : millis;
        return null;
    }

    /** @return the expiry time resolved, epoch milliseconds, or {@link KvClient#NO_EXPIRY} when none was given. */
    long expireAtMillis()
    {
        return expireAtMillis;
    }

    private static int expiryOption(final byte[] opt)
    {
        if (is(opt, "ex"))
        {
            return EX;
        }
        if (is(opt, "px"))
        {
            return PX;
        }
        if (is(opt, "exat"))
        {
            return EXAT;
        }
        return is(opt, "pxat") ? PXAT : 0;
    }
}
