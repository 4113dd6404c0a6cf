package io.dkv.verbs.ibv;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The structs of libibverbs ({@code <infiniband/verbs.h>}, rdma-core) the {@code verbs} provider reads and writes,
 * as {@link java.lang.foreign} layouts in the host's byte order, on 64-bit Linux. Each field has the C name, so that
 * {@code IbvHeaderLayoutTest} compares every offset and size with what the installed header gives a C compiler. A
 * union C leaves anonymous has a name starting with {@link #ANONYMOUS}: its members are reached in C without it.
 * Structs the library allocates ({@code ibv_context}, {@code ibv_qp}, {@code ibv_cq}) are laid out only up to the
 * last field read; their lengths are the library's.
 *
 * <pre>
 *   ibv_sge (16 B)               ibv_recv_wr (32 B)           ibv_wc (48 B)
 *    0 addr      u64              0 wr_id    u64               0 wr_id          u64
 *    8 length    u32              8 next     ptr               8 status         enum
 *   12 lkey      u32             16 sg_list  ptr              12 opcode         enum
 *                                24 num_sge  int              16 vendor_err     u32
 *                                                             20 byte_len       u32
 *   ibv_send_wr (128 B)                                       24 imm_data       u32 (union)
 *    0 wr_id       u64                                        28 qp_num         u32
 *    8 next        ptr                                        32 src_qp         u32
 *   16 sg_list     ptr                                        36 wc_flags       u32
 *   24 num_sge     int                                        40 pkey_index     u16
 *   28 opcode      enum                                       42 slid           u16
 *   32 send_flags  u32                                        44 sl, dlid_path_bits  u8 u8
 *   36 imm_data    u32 (union)
 *   40 wr          union: rdma {remote_addr u64, rkey u32} | atomic {remote_addr, compare_add, swap u64,
 *                  rkey u32} | ud {ah ptr, remote_qpn u32, remote_qkey u32}                 (32 B)
 *   72 qp_type     union: xrc {remote_srqn u32}
 *   80 (anonymous) union: bind_mw {...} | tso {...}                                         (48 B)
 * </pre>
 */
public final class IbvLayout
{
    /** A name prefix for a union C leaves anonymous. */
    public static final String ANONYMOUS = "anonymous_";

    public static final StructLayout SGE = structLayout(
        JAVA_LONG.withName("addr"),
        JAVA_INT.withName("length"),
        JAVA_INT.withName("lkey")).withName("ibv_sge");

    private static final StructLayout MW_BIND_INFO = structLayout(
        ADDRESS.withName("mr"),
        JAVA_LONG.withName("addr"),
        JAVA_LONG.withName("length"),
        JAVA_INT.withName("mw_access_flags"),
        paddingLayout(4)).withName("bind_info");

    public static final StructLayout SEND_WR = structLayout(
        JAVA_LONG.withName("wr_id"),
        ADDRESS.withName("next"),
        ADDRESS.withName("sg_list"),
        JAVA_INT.withName("num_sge"),
        JAVA_INT.withName("opcode"),
        JAVA_INT.withName("send_flags"),
        unionLayout(
            JAVA_INT.withName("imm_data"),
            JAVA_INT.withName("invalidate_rkey")).withName(ANONYMOUS + "imm"),
        unionLayout(
            structLayout(
                JAVA_LONG.withName("remote_addr"),
                JAVA_INT.withName("rkey"),
                paddingLayout(4)).withName("rdma"),
            structLayout(
                JAVA_LONG.withName("remote_addr"),
                JAVA_LONG.withName("compare_add"),
                JAVA_LONG.withName("swap"),
                JAVA_INT.withName("rkey"),
                paddingLayout(4)).withName("atomic"),
            structLayout(
                ADDRESS.withName("ah"),
                JAVA_INT.withName("remote_qpn"),
                JAVA_INT.withName("remote_qkey")).withName("ud")).withName("wr"),
        unionLayout(
            structLayout(JAVA_INT.withName("remote_srqn")).withName("xrc")).withName("qp_type"),
        paddingLayout(4),
        unionLayout(
            structLayout(
                ADDRESS.withName("mw"),
                JAVA_INT.withName("rkey"),
                paddingLayout(4),
                MW_BIND_INFO).withName("bind_mw"),
            structLayout(
                ADDRESS.withName("hdr"),
                JAVA_SHORT.withName("hdr_sz"),
                JAVA_SHORT.withName("mss"),
                paddingLayout(4)).withName("tso")).withName(ANONYMOUS + "ext")).withName("ibv_send_wr");

    public static final StructLayout RECV_WR = structLayout(
        JAVA_LONG.withName("wr_id"),
        ADDRESS.withName("next"),
        ADDRESS.withName("sg_list"),
        JAVA_INT.withName("num_sge"),
        paddingLayout(4)).withName("ibv_recv_wr");

    public static final StructLayout WC = structLayout(
        JAVA_LONG.withName("wr_id"),
        JAVA_INT.withName("status"),
        JAVA_INT.withName("opcode"),
        JAVA_INT.withName("vendor_err"),
        JAVA_INT.withName("byte_len"),
        unionLayout(
            JAVA_INT.withName("imm_data"),
            JAVA_INT.withName("invalidated_rkey")).withName(ANONYMOUS + "imm"),
        JAVA_INT.withName("qp_num"),
        JAVA_INT.withName("src_qp"),
        JAVA_INT.withName("wc_flags"),
        JAVA_SHORT.withName("pkey_index"),
        JAVA_SHORT.withName("slid"),
        JAVA_BYTE.withName("sl"),
        JAVA_BYTE.withName("dlid_path_bits"),
        paddingLayout(2)).withName("ibv_wc");

    /** A GID: 16 bytes, or a subnet prefix and an interface id (both big-endian). */
    public static final GroupLayout GID = unionLayout(
        sequenceLayout(16, JAVA_BYTE).withName("raw"),
        structLayout(
            JAVA_LONG.withName("subnet_prefix"),
            JAVA_LONG.withName("interface_id")).withName("global")).withName("ibv_gid");

    public static final StructLayout GLOBAL_ROUTE = structLayout(
        GID.withName("dgid"),
        JAVA_INT.withName("flow_label"),
        JAVA_BYTE.withName("sgid_index"),
        JAVA_BYTE.withName("hop_limit"),
        JAVA_BYTE.withName("traffic_class"),
        paddingLayout(1)).withName("ibv_global_route");

    public static final StructLayout AH_ATTR = structLayout(
        GLOBAL_ROUTE.withName("grh"),
        JAVA_SHORT.withName("dlid"),
        JAVA_BYTE.withName("sl"),
        JAVA_BYTE.withName("src_path_bits"),
        JAVA_BYTE.withName("static_rate"),
        JAVA_BYTE.withName("is_global"),
        JAVA_BYTE.withName("port_num"),
        paddingLayout(1)).withName("ibv_ah_attr");

    public static final StructLayout QP_CAP = structLayout(
        JAVA_INT.withName("max_send_wr"),
        JAVA_INT.withName("max_recv_wr"),
        JAVA_INT.withName("max_send_sge"),
        JAVA_INT.withName("max_recv_sge"),
        JAVA_INT.withName("max_inline_data")).withName("ibv_qp_cap");

    public static final StructLayout QP_INIT_ATTR = structLayout(
        ADDRESS.withName("qp_context"),
        ADDRESS.withName("send_cq"),
        ADDRESS.withName("recv_cq"),
        ADDRESS.withName("srq"),
        QP_CAP.withName("cap"),
        JAVA_INT.withName("qp_type"),
        JAVA_INT.withName("sq_sig_all"),
        paddingLayout(4)).withName("ibv_qp_init_attr");

    public static final StructLayout QP_ATTR = structLayout(
        JAVA_INT.withName("qp_state"),
        JAVA_INT.withName("cur_qp_state"),
        JAVA_INT.withName("path_mtu"),
        JAVA_INT.withName("path_mig_state"),
        JAVA_INT.withName("qkey"),
        JAVA_INT.withName("rq_psn"),
        JAVA_INT.withName("sq_psn"),
        JAVA_INT.withName("dest_qp_num"),
        JAVA_INT.withName("qp_access_flags"),
        QP_CAP.withName("cap"),
        AH_ATTR.withName("ah_attr"),
        AH_ATTR.withName("alt_ah_attr"),
        JAVA_SHORT.withName("pkey_index"),
        JAVA_SHORT.withName("alt_pkey_index"),
        JAVA_BYTE.withName("en_sqd_async_notify"),
        JAVA_BYTE.withName("sq_draining"),
        JAVA_BYTE.withName("max_rd_atomic"),
        JAVA_BYTE.withName("max_dest_rd_atomic"),
        JAVA_BYTE.withName("min_rnr_timer"),
        JAVA_BYTE.withName("port_num"),
        JAVA_BYTE.withName("timeout"),
        JAVA_BYTE.withName("retry_cnt"),
        JAVA_BYTE.withName("rnr_retry"),
        JAVA_BYTE.withName("alt_port_num"),
        JAVA_BYTE.withName("alt_timeout"),
        paddingLayout(1),
        JAVA_INT.withName("rate_limit"),
        paddingLayout(4)).withName("ibv_qp_attr");

    public static final StructLayout PORT_ATTR = structLayout(
        JAVA_INT.withName("state"),
        JAVA_INT.withName("max_mtu"),
        JAVA_INT.withName("active_mtu"),
        JAVA_INT.withName("gid_tbl_len"),
        JAVA_INT.withName("port_cap_flags"),
        JAVA_INT.withName("max_msg_sz"),
        JAVA_INT.withName("bad_pkey_cntr"),
        JAVA_INT.withName("qkey_viol_cntr"),
        JAVA_SHORT.withName("pkey_tbl_len"),
        JAVA_SHORT.withName("lid"),
        JAVA_SHORT.withName("sm_lid"),
        JAVA_BYTE.withName("lmc"),
        JAVA_BYTE.withName("max_vl_num"),
        JAVA_BYTE.withName("sm_sl"),
        JAVA_BYTE.withName("subnet_timeout"),
        JAVA_BYTE.withName("init_type_reply"),
        JAVA_BYTE.withName("active_width"),
        JAVA_BYTE.withName("active_speed"),
        JAVA_BYTE.withName("phys_state"),
        JAVA_BYTE.withName("link_layer"),
        JAVA_BYTE.withName("flags"),
        JAVA_SHORT.withName("port_cap_flags2"),
        paddingLayout(2)).withName("ibv_port_attr");

    public static final StructLayout SRQ_ATTR = structLayout(
        JAVA_INT.withName("max_wr"),
        JAVA_INT.withName("max_sge"),
        JAVA_INT.withName("srq_limit")).withName("ibv_srq_attr");

    public static final StructLayout SRQ_INIT_ATTR = structLayout(
        ADDRESS.withName("srq_context"),
        SRQ_ATTR.withName("attr"),
        paddingLayout(4)).withName("ibv_srq_init_attr");

    public static final StructLayout DEVICE_ATTR = structLayout(
        sequenceLayout(64, JAVA_BYTE).withName("fw_ver"),
        JAVA_LONG.withName("node_guid"),
        JAVA_LONG.withName("sys_image_guid"),
        JAVA_LONG.withName("max_mr_size"),
        JAVA_LONG.withName("page_size_cap"),
        JAVA_INT.withName("vendor_id"),
        JAVA_INT.withName("vendor_part_id"),
        JAVA_INT.withName("hw_ver"),
        JAVA_INT.withName("max_qp"),
        JAVA_INT.withName("max_qp_wr"),
        JAVA_INT.withName("device_cap_flags"),
        JAVA_INT.withName("max_sge"),
        JAVA_INT.withName("max_sge_rd"),
        JAVA_INT.withName("max_cq"),
        JAVA_INT.withName("max_cqe"),
        JAVA_INT.withName("max_mr"),
        JAVA_INT.withName("max_pd"),
        JAVA_INT.withName("max_qp_rd_atom"),
        JAVA_INT.withName("max_ee_rd_atom"),
        JAVA_INT.withName("max_res_rd_atom"),
        JAVA_INT.withName("max_qp_init_rd_atom"),
        JAVA_INT.withName("max_ee_init_rd_atom"),
        JAVA_INT.withName("atomic_cap"),
        JAVA_INT.withName("max_ee"),
        JAVA_INT.withName("max_rdd"),
        JAVA_INT.withName("max_mw"),
        JAVA_INT.withName("max_raw_ipv6_qp"),
        JAVA_INT.withName("max_raw_ethy_qp"),
        JAVA_INT.withName("max_mcast_grp"),
        JAVA_INT.withName("max_mcast_qp_attach"),
        JAVA_INT.withName("max_total_mcast_qp_attach"),
        JAVA_INT.withName("max_ah"),
        JAVA_INT.withName("max_fmr"),
        JAVA_INT.withName("max_map_per_fmr"),
        JAVA_INT.withName("max_srq"),
        JAVA_INT.withName("max_srq_wr"),
        JAVA_INT.withName("max_srq_sge"),
        JAVA_SHORT.withName("max_pkeys"),
        JAVA_BYTE.withName("local_ca_ack_delay"),
        JAVA_BYTE.withName("phys_port_cnt"),
        paddingLayout(4)).withName("ibv_device_attr");

    public static final StructLayout MR = structLayout(
        ADDRESS.withName("context"),
        ADDRESS.withName("pd"),
        ADDRESS.withName("addr"),
        JAVA_LONG.withName("length"),
        JAVA_INT.withName("handle"),
        JAVA_INT.withName("lkey"),
        JAVA_INT.withName("rkey"),
        paddingLayout(4)).withName("ibv_mr");

    public static final StructLayout PD = structLayout(
        ADDRESS.withName("context"),
        JAVA_INT.withName("handle"),
        paddingLayout(4)).withName("ibv_pd");

    /**
     * The context's operations: function pointers, those the library still dispatches through (the static inline
     * {@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_poll_cq} and {@code ibv_post_srq_recv} call them).
     */
    public static final StructLayout CONTEXT_OPS = structLayout(
        ADDRESS.withName("_compat_query_device"),
        ADDRESS.withName("_compat_query_port"),
        ADDRESS.withName("_compat_alloc_pd"),
        ADDRESS.withName("_compat_dealloc_pd"),
        ADDRESS.withName("_compat_reg_mr"),
        ADDRESS.withName("_compat_rereg_mr"),
        ADDRESS.withName("_compat_dereg_mr"),
        ADDRESS.withName("alloc_mw"),
        ADDRESS.withName("bind_mw"),
        ADDRESS.withName("dealloc_mw"),
        ADDRESS.withName("_compat_create_cq"),
        ADDRESS.withName("poll_cq"),
        ADDRESS.withName("req_notify_cq"),
        ADDRESS.withName("_compat_cq_event"),
        ADDRESS.withName("_compat_resize_cq"),
        ADDRESS.withName("_compat_destroy_cq"),
        ADDRESS.withName("_compat_create_srq"),
        ADDRESS.withName("_compat_modify_srq"),
        ADDRESS.withName("_compat_query_srq"),
        ADDRESS.withName("_compat_destroy_srq"),
        ADDRESS.withName("post_srq_recv"),
        ADDRESS.withName("_compat_create_qp"),
        ADDRESS.withName("_compat_query_qp"),
        ADDRESS.withName("_compat_modify_qp"),
        ADDRESS.withName("_compat_destroy_qp"),
        ADDRESS.withName("post_send"),
        ADDRESS.withName("post_recv"),
        ADDRESS.withName("_compat_create_ah"),
        ADDRESS.withName("_compat_destroy_ah"),
        ADDRESS.withName("_compat_attach_mcast"),
        ADDRESS.withName("_compat_detach_mcast"),
        ADDRESS.withName("_compat_async_event")).withName("ibv_context_ops");

    /** Up to the fields read: the device, the operations, the file descriptors. */
    public static final StructLayout CONTEXT = structLayout(
        ADDRESS.withName("device"),
        CONTEXT_OPS.withName("ops"),
        JAVA_INT.withName("cmd_fd"),
        JAVA_INT.withName("async_fd"),
        JAVA_INT.withName("num_comp_vectors")).withName("ibv_context");

    /**
     * The whole queue pair, its mutex and condition as glibc lays them out on x86-64 and aarch64 (40 and 48 bytes):
     * the extended queue pair ({@link #QP_EX}) follows it.
     */
    public static final StructLayout QP = structLayout(
        ADDRESS.withName("context"),
        ADDRESS.withName("qp_context"),
        ADDRESS.withName("pd"),
        ADDRESS.withName("send_cq"),
        ADDRESS.withName("recv_cq"),
        ADDRESS.withName("srq"),
        JAVA_INT.withName("handle"),
        JAVA_INT.withName("qp_num"),
        JAVA_INT.withName("state"),
        JAVA_INT.withName("qp_type"),
        sequenceLayout(40, JAVA_BYTE).withName("mutex"),
        sequenceLayout(48, JAVA_BYTE).withName("cond"),
        JAVA_INT.withName("events_completed"),
        paddingLayout(4)).withName("ibv_qp");

    /**
     * The extended queue pair ({@code ibv_qp_to_qp_ex}): a request is built by calling its function pointers, as
     * the static inline {@code ibv_wr_*} functions of verbs.h do, between {@code wr_start} and {@code wr_complete}.
     */
    public static final StructLayout QP_EX = structLayout(
        QP.withName("qp_base"),
        JAVA_LONG.withName("comp_mask"),
        JAVA_LONG.withName("wr_id"),
        JAVA_INT.withName("wr_flags"),
        paddingLayout(4),
        ADDRESS.withName("wr_atomic_cmp_swp"),
        ADDRESS.withName("wr_atomic_fetch_add"),
        ADDRESS.withName("wr_bind_mw"),
        ADDRESS.withName("wr_local_inv"),
        ADDRESS.withName("wr_rdma_read"),
        ADDRESS.withName("wr_rdma_write"),
        ADDRESS.withName("wr_rdma_write_imm"),
        ADDRESS.withName("wr_send"),
        ADDRESS.withName("wr_send_imm"),
        ADDRESS.withName("wr_send_inv"),
        ADDRESS.withName("wr_send_tso"),
        ADDRESS.withName("wr_set_ud_addr"),
        ADDRESS.withName("wr_set_xrc_srqn"),
        ADDRESS.withName("wr_set_inline_data"),
        ADDRESS.withName("wr_set_inline_data_list"),
        ADDRESS.withName("wr_set_sge"),
        ADDRESS.withName("wr_set_sge_list"),
        ADDRESS.withName("wr_start"),
        ADDRESS.withName("wr_complete"),
        ADDRESS.withName("wr_abort"),
        ADDRESS.withName("wr_atomic_write")).withName("ibv_qp_ex");

    public static final StructLayout RX_HASH_CONF = structLayout(
        JAVA_BYTE.withName("rx_hash_function"),
        JAVA_BYTE.withName("rx_hash_key_len"),
        paddingLayout(6),
        ADDRESS.withName("rx_hash_key"),
        JAVA_LONG.withName("rx_hash_fields_mask")).withName("ibv_rx_hash_conf");

    /** What {@code mlx5dv_create_qp} takes: the DC queue pairs are created with it. */
    public static final StructLayout QP_INIT_ATTR_EX = structLayout(
        ADDRESS.withName("qp_context"),
        ADDRESS.withName("send_cq"),
        ADDRESS.withName("recv_cq"),
        ADDRESS.withName("srq"),
        QP_CAP.withName("cap"),
        JAVA_INT.withName("qp_type"),
        JAVA_INT.withName("sq_sig_all"),
        JAVA_INT.withName("comp_mask"),
        ADDRESS.withName("pd"),
        ADDRESS.withName("xrcd"),
        JAVA_INT.withName("create_flags"),
        JAVA_SHORT.withName("max_tso_header"),
        paddingLayout(2),
        ADDRESS.withName("rwq_ind_tbl"),
        RX_HASH_CONF.withName("rx_hash_conf"),
        JAVA_INT.withName("source_qpn"),
        paddingLayout(4),
        JAVA_LONG.withName("send_ops_flags")).withName("ibv_qp_init_attr_ex");

    /** A GID table entry ({@code ibv_query_gid_ex}): the GID with its type (IB, RoCE v1, RoCE v2). */
    public static final StructLayout GID_ENTRY = structLayout(
        GID.withName("gid"),
        JAVA_INT.withName("gid_index"),
        JAVA_INT.withName("port_num"),
        JAVA_INT.withName("gid_type"),
        JAVA_INT.withName("ndev_ifindex")).withName("ibv_gid_entry");

    /** mlx5dv.h: a DC queue pair's kind and, for a target, its access key. */
    public static final StructLayout MLX5DV_DC_INIT_ATTR = structLayout(
        JAVA_INT.withName("dc_type"),
        paddingLayout(4),
        unionLayout(
            JAVA_LONG.withName("dct_access_key"),
            structLayout(
                JAVA_BYTE.withName("log_num_concurent"),
                JAVA_BYTE.withName("log_num_errored")).withName("dci_streams")).withName(ANONYMOUS + "key"))
        .withName("mlx5dv_dc_init_attr");

    public static final StructLayout MLX5DV_QP_INIT_ATTR = structLayout(
        JAVA_LONG.withName("comp_mask"),
        JAVA_INT.withName("create_flags"),
        paddingLayout(4),
        MLX5DV_DC_INIT_ATTR.withName("dc_init_attr"),
        JAVA_LONG.withName("send_ops_flags")).withName("mlx5dv_qp_init_attr");

    /** Up to the pointer read: {@code mlx5dv_wr_set_dc_addr} is static inline and calls it. */
    public static final StructLayout MLX5DV_QP_EX = structLayout(
        JAVA_LONG.withName("comp_mask"),
        ADDRESS.withName("wr_set_dc_addr")).withName("mlx5dv_qp_ex");

    /** Up to the fields read, before its mutex. */
    public static final StructLayout CQ = structLayout(
        ADDRESS.withName("context"),
        ADDRESS.withName("channel"),
        ADDRESS.withName("cq_context"),
        JAVA_INT.withName("handle"),
        JAVA_INT.withName("cqe")).withName("ibv_cq");

    private IbvLayout()
    {
    }

    /** @return the byte offset of a field reached by its names, C's {@code offsetof(struct, a.b)} without unions. */
    public static long offset(final GroupLayout layout, final String... names)
    {
        final MemoryLayout.PathElement[] path = new MemoryLayout.PathElement[names.length];
        for (int i = 0; i < names.length; i++)
        {
            path[i] = MemoryLayout.PathElement.groupElement(names[i]);
        }
        return layout.byteOffset(path);
    }
}
